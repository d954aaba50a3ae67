#include "z402/http/read_response.hpp"

#include <zlib.h>

#include <array>
#include <memory>
#include <stdexcept>

namespace z402::http {
namespace {

std::string_view header_value(const request& req, bhttp::field f) {
  auto it = req.find(f);
  return it == req.end() ? std::string_view{} : std::string_view{it->value().data(), it->value().size()};
}

std::string_view trim(std::string_view s) {
  auto b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// A few recent compressed bodies per thread: a popular page is compressed once per version.
struct gzip_cache {
  struct entry {
    std::string etag;
    std::shared_ptr<const std::string> body;
  };
  std::array<entry, 16> entries;
  std::size_t next = 0;

  std::shared_ptr<const std::string> get(std::string_view etag, std::string_view body) {
    for (auto& e : entries)
      if (e.etag == etag) return e.body;
    auto& slot = entries[next++ % entries.size()];
    slot = {std::string{etag}, std::make_shared<const std::string>(gzip(body))};
    return slot.body;
  }
};

}  // namespace

std::string etag_of(std::uint64_t snapshot_version, std::string_view target) {
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a over the request target
  for (unsigned char c : target) h = (h ^ c) * 1099511628211ull;
  char buf[48];
  std::snprintf(buf, sizeof buf, "\"%llx-%016llx\"", static_cast<unsigned long long>(snapshot_version),
                static_cast<unsigned long long>(h));
  return buf;
}

bool not_modified(const request& req, std::string_view etag) {
  auto v = header_value(req, bhttp::field::if_none_match);
  while (!v.empty()) {
    auto comma = v.find(',');
    auto tag = trim(v.substr(0, comma));
    if (tag.substr(0, 2) == "W/") tag = tag.substr(2);
    if (tag == etag || tag == "*") return true;
    v = comma == std::string_view::npos ? std::string_view{} : v.substr(comma + 1);
  }
  return false;
}

bool accepts_gzip(const request& req) {
  auto v = header_value(req, bhttp::field::accept_encoding);
  while (!v.empty()) {
    auto comma = v.find(',');
    auto item = trim(v.substr(0, comma));
    auto semi = item.find(';');
    auto coding = trim(item.substr(0, semi));
    auto params = semi == std::string_view::npos ? std::string_view{} : item.substr(semi + 1);
    bool refused = trim(params) == "q=0" || trim(params) == "q=0.0" || trim(params) == "q=0.000";
    if ((coding == "gzip" || coding == "x-gzip") && !refused) return true;
    v = comma == std::string_view::npos ? std::string_view{} : v.substr(comma + 1);
  }
  return false;
}

response not_modified_response(std::string_view etag) {
  response res{bhttp::status::not_modified, 11};
  res.set(bhttp::field::etag, etag);
  res.set(bhttp::field::cache_control, "no-cache");
  res.set(bhttp::field::vary, "Accept-Encoding");
  return res;
}

response read_response(const request& req, std::string_view etag, response_text body) {
  thread_local gzip_cache cache;
  response res{bhttp::status::ok, 11};
  res.set(bhttp::field::content_type, "application/json");
  res.set(bhttp::field::cache_control, "no-cache");
  res.set(bhttp::field::etag, etag);
  res.set(bhttp::field::vary, "Accept-Encoding");
  if (body.payload_size() > gzip_threshold && accepts_gzip(req)) {
    res.set(bhttp::field::content_encoding, "gzip");
    res.body() = *cache.get(etag, body.pieces.empty() ? std::string_view{body} : std::string_view{body.flatten()});
  } else {
    res.body() = std::move(body);
  }
  res.prepare_payload();
  return res;
}

std::string gzip(std::string_view body) {
  z_stream zs{};
  // windowBits 15 + 16: the gzip wrapper; level 1: JSON compresses well even at the fastest level.
  if (deflateInit2(&zs, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("zlib: deflateInit2 failed");
  std::string out(deflateBound(&zs, body.size()), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(body.data()));
  zs.avail_in = static_cast<uInt>(body.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  auto rc = deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) throw std::runtime_error("zlib: deflate failed");
  return out;
}

}  // namespace z402::http
