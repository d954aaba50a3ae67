#pragma once
// What every catalog read shares: an ETag from the snapshot version and the request, 304
// when the client already has it, Cache-Control: no-cache, and gzip for bodies over 1 KiB
// when the client accepts it (the official client does and so does every browser), compressed
// once per ETag (gzip_cache); a plain body over 4 KiB is written to a file once per ETag and
// sent from it (page_files).
#include "z402/catalog/snapshot.hpp"
#include "z402/http/gzip_cache.hpp"
#include "z402/http/message.hpp"
#include "z402/http/page_file.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace z402::http {

constexpr std::size_t gzip_threshold = 1024;
/// Pages of at most one memory page are copied: sendfile saves the copy of whole pages only.
constexpr std::size_t file_threshold = 4u << 10;

/// The caches a read's answer is made from.
struct read_caches {
  gzip_cache& gzip;
  page_files& files;
};

/// An ETag's text, held in place: every read makes one, and most are answered without it
/// leaving the stack (a 304, a gzip cache hit).
class etag_text {
 public:
  std::string_view view() const { return {bytes_.data(), size_}; }
  operator std::string_view() const { return view(); }
  void push(char c) { bytes_[size_++] = c; }

 private:
  std::array<char, 52> bytes_{};  // "EPOCH-VERSION-HASH": two hex numbers up to 16 digits, 16 digits, 2 quotes
  std::uint8_t size_ = 0;
};

/// The ETag of a read: the snapshot's run and version (a restart starts versions again, and
/// followers serve their primary's), and the request target.
etag_text etag_of(const catalog::snapshot& snap, std::string_view target);

/// Whether If-None-Match names `etag` (or *).
bool not_modified(const request& req, std::string_view etag);

/// Whether Accept-Encoding accepts gzip (and does not give it q=0).
bool accepts_gzip(const request& req);

response not_modified_response(std::string_view etag);

/// 200 with the page, the ETag and, when it helps, gzip or a file to send it from (`caches`).
/// `claim`: the gzip cache's claim on this ETag, when the client accepts gzip and the page was
/// not compressed yet.
response rendered_response(std::string_view etag, response_text body, read_caches caches, gzip_cache::entry_ptr claim);
/// 200 with a page compressed before.
response compressed_response(std::string_view etag, gzip_cache::entry_ptr compressed);

/// A read's answer: the page `render()` makes (a response_text), unless it was compressed
/// before for a client that takes it: then it is not rendered again.
template <class Render>
response read_response(const request& req, std::string_view etag, Render&& render, read_caches caches) {
  gzip_cache::lookup found;
  if (accepts_gzip(req)) {
    found = caches.gzip.find_or_claim(etag);
    if (found.hit) return compressed_response(etag, std::move(found.hit));
  }
  return rendered_response(etag, render(), caches, std::move(found.claim));
}

}  // namespace z402::http
