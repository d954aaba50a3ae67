#include "routes/read_response.hpp"

#include <algorithm>
#include <stdexcept>

namespace z402::routes {
namespace {

std::string_view header_value(const http::request& req, http::bhttp::field f) {
  auto it = req.find(f);
  return it == req.end() ? std::string_view{} : std::string_view{it->value().data(), it->value().size()};
}

std::string_view trim(std::string_view s) {
  auto b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

// Lower-case hex of `v`, at least `digits` of them (leading zeros).
void push_hex(etag_text& out, std::uint64_t v, int digits) {
  int n = 1;
  while (n < 16 && (v >> (4 * n)) != 0) ++n;
  for (int i = std::max(n, digits) - 1; i >= 0; --i) out.push("0123456789abcdef"[(v >> (4 * i)) & 0xf]);
}

}  // namespace

etag_text::etag_text(std::string_view text, cache_version made_for, std::uint64_t place) : made_for_(made_for), place_(place) {
  if (text.size() > bytes_.size()) throw std::length_error("an ETag is at most 52 bytes");
  for (char c : text) push(c);
}

etag_text etag_of(const catalog::snapshot& snap, std::string_view target) {
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a over the request target
  for (unsigned char c : target) h = (h ^ c) * 1099511628211ull;
  etag_text out;  // "%llx-%llx-%016llx", quoted
  out.made_for_ = {snap.epoch, snap.version};
  out.place_ = h;
  out.push('"');
  push_hex(out, snap.epoch, 1);
  out.push('-');
  push_hex(out, snap.version, 1);
  out.push('-');
  push_hex(out, h, 16);
  out.push('"');
  return out;
}

bool not_modified(const http::request& req, std::string_view etag) {
  auto v = header_value(req, http::bhttp::field::if_none_match);
  while (!v.empty()) {
    auto comma = v.find(',');
    auto tag = trim(v.substr(0, comma));
    if (tag.substr(0, 2) == "W/") tag = tag.substr(2);
    if (tag == etag || tag == "*") return true;
    v = comma == std::string_view::npos ? std::string_view{} : v.substr(comma + 1);
  }
  return false;
}

std::string_view cache_key(const etag_text& etag, const http::request& req) {
  thread_local std::string key;  // no allocation per read once it has grown
  key.assign(etag.view()).append(req.target().data(), req.target().size());
  return key;
}

bool accepts_gzip(const http::request& req) {
  auto v = header_value(req, http::bhttp::field::accept_encoding);
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

http::response not_modified_response(std::string_view etag) {
  http::response res{http::bhttp::status::not_modified, 11};
  res.set(http::bhttp::field::etag, etag);
  res.set(http::bhttp::field::cache_control, "no-cache");
  res.set(http::bhttp::field::vary, "Accept-Encoding");
  return res;
}

namespace {

http::response read_header(std::string_view etag) {
  http::response res{http::bhttp::status::ok, 11};
  res.set(http::bhttp::field::content_type, "application/json");
  res.set(http::bhttp::field::cache_control, "no-cache");
  res.set(http::bhttp::field::etag, etag);
  res.set(http::bhttp::field::vary, "Accept-Encoding");
  return res;
}

}  // namespace

void read_claims::release(read_caches caches) {
  if (gzip) caches.gzip.release(std::move(gzip));
  if (file) caches.files.release(std::move(file));
}

http::response compressed_response(std::string_view etag, gzip_cache::entry_ptr compressed) {
  // The cached bytes go out as they are, kept alive by the answer: no copy.
  auto res = read_header(etag);
  res.set(http::bhttp::field::content_encoding, "gzip");
  auto& page = *compressed->value;
  if (page.file) {
    res.body().file = {compressed, &*page.file};
  } else {
    res.body().pieces.emplace_back(page.bytes.data(), page.bytes.size());
    res.body().keep_alive = std::move(compressed);
  }
  res.prepare_payload();
  return res;
}

http::response file_response(std::string_view etag, page_files::entry_ptr file) {
  auto res = read_header(etag);
  res.body() = file_body(std::move(file));
  res.prepare_payload();
  return res;
}

http::response rendered_response(const etag_text& etag, http::response_text body, read_caches caches, read_claims claims,
                           std::optional<page_content> made_of) {
  if (claims.gzip) {
    if (body.payload_size() > gzip_threshold) {
      std::string bytes;
      try {
        bytes = gzip(body);
      } catch (...) {
        claims.release(caches);  // or the slot stays claimed for good
        throw;
      }
      auto file = [&]() -> std::optional<http::page_file> {
        if (bytes.size() <= file_threshold) return std::nullopt;
        http::response_text whole;
        whole.pieces.emplace_back(bytes.data(), bytes.size());
        return http::page_file::write(whole);
      }();
      auto size = bytes.size();
      if (file) bytes = std::string{};  // every answer reads the file: no second copy in memory
      auto filled = caches.gzip.fill(std::move(claims.gzip), compressed_page{std::move(bytes), std::move(file)}, size);
      if (made_of) caches.gzip.remember(etag.place(), std::move(*made_of), filled);
      return compressed_response(etag, std::move(filled));
    }
    caches.gzip.release(std::move(claims.gzip));  // too small to be worth compressing
  }
  if (claims.file) {
    // A large page goes into a file once per ETag, which plain TCP sends without copying it.
    if (body.payload_size() > file_threshold)
      if (auto file = http::page_file::write(body)) {
        auto size = file->size();
        auto filled = caches.files.fill(std::move(claims.file), std::move(*file), size);
        if (made_of) caches.files.remember(etag.place(), std::move(*made_of), filled);
        return file_response(etag, std::move(filled));
      }
    caches.files.release(std::move(claims.file));  // small, or no file to be had
  }
  // Without a claim (another reader is compressing or writing this page, or a cache's budget
  // is spent), the page goes out as rendered.
  auto res = read_header(etag);
  res.body() = std::move(body);
  res.prepare_payload();
  return res;
}

}  // namespace z402::routes
