#include "z402/http/gzip_cache.hpp"

#include <zlib.h>

#include <stdexcept>

namespace z402::http {
namespace {

/// Feeds `parts` through one deflate stream.
template <class Parts>
std::string deflate_parts(std::size_t total, const Parts& parts) {
  z_stream zs{};
  // windowBits 15 + 16: the gzip wrapper; level 1: JSON compresses well even at the fastest level.
  if (deflateInit2(&zs, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("zlib: deflateInit2 failed");
  std::string out(deflateBound(&zs, total), '\0');
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  int rc = Z_OK;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    std::string_view p = parts[i];
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(p.data()));
    zs.avail_in = static_cast<uInt>(p.size());
    rc = deflate(&zs, i + 1 == parts.size() ? Z_FINISH : Z_NO_FLUSH);
  }
  out.resize(zs.total_out);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) throw std::runtime_error("zlib: deflate failed");
  return out;
}

}  // namespace

std::string gzip(std::string_view body) { return deflate_parts(body.size(), std::array<std::string_view, 1>{body}); }

std::string gzip(const response_text& page) {
  std::vector<std::string_view> parts;
  parts.reserve(page.pieces.size() + 2);
  parts.emplace_back(page);
  for (auto& p : page.pieces) parts.emplace_back(static_cast<const char*>(p.data()), p.size());
  parts.emplace_back(page.suffix);
  return deflate_parts(page.payload_size(), parts);
}

std::shared_ptr<const gzip_cache::entry> gzip_cache::get(std::string_view etag, const response_text& page) {
  auto& slot = slots_[std::hash<std::string_view>{}(etag) % slot_count];
  if (auto cached = slot.load(std::memory_order_acquire); cached && cached->etag == etag) {
    hits.add();
    return cached;
  }
  compressions.add();
  auto fresh = std::make_shared<const entry>(entry{std::string{etag}, gzip(page)});
  slot.store(fresh, std::memory_order_release);
  return fresh;
}

}  // namespace z402::http
