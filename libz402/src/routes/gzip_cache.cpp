#include "routes/gzip_cache.hpp"

#include <zlib.h>

#include <stdexcept>

namespace z402::routes {
namespace {

/// One deflate stream per thread, reset between pages, and its output buffer: a page's
/// compression allocates only its result. (deflateInit2 allocates about 256 KiB of state and
/// the output was a zeroed buffer of deflateBound bytes: fresh pages to fault in on every
/// compression, and TLB-shootdown IPIs when freed, a third of the server's time under writes.)
class deflater {
 public:
  deflater() {
    // windowBits 15 + 16: the gzip wrapper; level 1: JSON compresses well even at the fastest level.
    if (deflateInit2(&zs_, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
      throw std::runtime_error("zlib: deflateInit2 failed");
  }
  ~deflater() { deflateEnd(&zs_); }
  deflater(const deflater&) = delete;
  deflater& operator=(const deflater&) = delete;

  /// Feeds `parts` through the stream.
  template <class Parts>
  std::string compress(std::size_t total, const Parts& parts) {
    if (deflateReset(&zs_) != Z_OK) throw std::runtime_error("zlib: deflateReset failed");
    auto bound = deflateBound(&zs_, total);
    if (out_.size() < bound) out_.resize(bound);
    zs_.next_out = reinterpret_cast<Bytef*>(out_.data());
    zs_.avail_out = static_cast<uInt>(bound);
    int rc = Z_OK;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      std::string_view p = parts[i];
      zs_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(p.data()));
      zs_.avail_in = static_cast<uInt>(p.size());
      rc = deflate(&zs_, i + 1 == parts.size() ? Z_FINISH : Z_NO_FLUSH);
    }
    if (rc != Z_STREAM_END) throw std::runtime_error("zlib: deflate failed");
    return std::string{out_.data(), zs_.total_out};
  }

 private:
  z_stream zs_{};
  std::string out_;  // grows to the largest page's bound and stays
};

template <class Parts>
std::string deflate_parts(std::size_t total, const Parts& parts) {
  thread_local deflater d;
  return d.compress(total, parts);
}

}  // namespace

std::string gzip(std::string_view body) { return deflate_parts(body.size(), std::array<std::string_view, 1>{body}); }

std::string gzip(const http::response_text& page) {
  std::vector<std::string_view> parts;
  parts.reserve(page.pieces.size() + 2);
  parts.emplace_back(page);
  for (auto& p : page.pieces) parts.emplace_back(static_cast<const char*>(p.data()), p.size());
  parts.emplace_back(page.suffix);
  return deflate_parts(page.payload_size(), parts);
}

}  // namespace z402::routes
