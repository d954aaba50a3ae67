#pragma once
// What every catalog read shares: an ETag from the snapshot version and the request, 304
// when the client already has it, Cache-Control: no-cache, and gzip for bodies over 1 KiB
// when the client accepts it (the official client does and so does every browser), compressed
// once per ETag (gzip_cache); a plain body over 4 KiB is written to a file once per ETag and
// sent from it (page_files).
#include "z402/catalog/snapshot.hpp"
#include "routes/gzip_cache.hpp"
#include "z402/http/message.hpp"
#include "routes/page_files.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace z402::routes {

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
  etag_text() = default;
  /// `text` (at most 52 bytes) as the ETag of a page of snapshot `made_for`, asked for by a
  /// request target whose hash is `place`.
  etag_text(std::string_view text, cache_version made_for, std::uint64_t place = 0);

  std::string_view view() const { return {bytes_.data(), size_}; }
  operator std::string_view() const { return view(); }
  void push(char c) { bytes_[size_++] = c; }
  /// The snapshot the ETag names: what the caches need to tell a superseded page.
  cache_version made_for() const { return made_for_; }
  /// The request target's hash: where the caches remember the page's content (page_content).
  std::uint64_t place() const { return place_; }

 private:
  friend etag_text etag_of(const catalog::snapshot& snap, std::string_view target);
  std::array<char, 52> bytes_{};  // "EPOCH-VERSION-HASH": two hex numbers up to 16 digits, 16 digits, 2 quotes
  std::uint8_t size_ = 0;
  cache_version made_for_;
  std::uint64_t place_ = 0;
};

/// The ETag of a read: the snapshot's run and version (a restart starts versions again, and
/// followers serve their primary's), and the request target.
etag_text etag_of(const catalog::snapshot& snap, std::string_view target);

/// What the caches know a read's page by: its ETag and the request target whole. The ETag holds
/// only a 64-bit FNV-1a hash of the target, and a client can make a target whose hash meets
/// another's (FNV is no defence against a chosen collision): keyed by the ETag alone, the page
/// made for one client's request would be served for another's. A view of a buffer the thread
/// keeps, valid until its next call on that thread.
std::string_view cache_key(const etag_text& etag, const http::request& req);

/// Whether If-None-Match names `etag` (or *).
bool not_modified(const http::request& req, std::string_view etag);

/// Whether Accept-Encoding accepts gzip (and does not give it q=0).
bool accepts_gzip(const http::request& req);

http::response not_modified_response(std::string_view etag);

/// What a read holds of the caches while its page is rendered: its ETag claimed in the gzip
/// cache (the client takes gzip and nobody compressed the page yet), or in the files (nobody
/// wrote its file yet).
struct read_claims {
  gzip_cache::entry_ptr gzip;
  page_files::entry_ptr file;
  void release(read_caches caches);
};

/// 200 with a page compressed before.
http::response compressed_response(std::string_view etag, gzip_cache::entry_ptr compressed);
/// 200 with a page written to a file before.
http::response file_response(std::string_view etag, page_files::entry_ptr file);
/// 200 with a page as rendered, compressed or written to a file first for the claims held,
/// and remembered as the page `made_of` (when it says) for later versions to reuse.
http::response rendered_response(const etag_text& etag, http::response_text body, read_caches caches, read_claims claims,
                           std::optional<page_content> made_of);

/// A read's answer: the page `render()` makes (a response_text), unless it is cached for this
/// ETag, compressed for a client that takes gzip or in a file for one that does not: then it
/// is not rendered again. On a miss, `content()` may say what the page is made of
/// (std::optional<page_content>, a list page's): a value made for an earlier version's page of
/// the same content is taken instead of compressing or writing the page again.
template <class Render, class Content>
http::response read_response(const http::request& req, const etag_text& etag, Render&& render, read_caches caches, Content&& content) {
  read_claims claims;
  auto key = cache_key(etag, req);
  if (accepts_gzip(req)) {
    auto found = caches.gzip.find_or_claim(key, etag.made_for());
    if (found.hit) return compressed_response(etag, std::move(found.hit));
    claims.gzip = std::move(found.claim);
  }
  if (!claims.gzip) {
    auto found = caches.files.find_or_claim(key, etag.made_for());
    if (found.hit) return file_response(etag, std::move(found.hit));
    claims.file = std::move(found.claim);
  }
  std::optional<page_content> made_of;
  http::response_text body;
  try {
    if (claims.gzip || claims.file) made_of = content();
    if (made_of && claims.gzip)
      if (auto earlier = caches.gzip.made_before(etag.place(), *made_of))
        return compressed_response(etag, caches.gzip.fill_reused(std::move(claims.gzip), earlier));
    if (made_of && claims.file)
      if (auto earlier = caches.files.made_before(etag.place(), *made_of))
        return file_response(etag, caches.files.fill_reused(std::move(claims.file), earlier));
    body = render();
  } catch (...) {
    claims.release(caches);  // or their slots stay claimed for good
    throw;
  }
  return rendered_response(etag, std::move(body), caches, std::move(claims), std::move(made_of));
}

/// The same for a page that cannot say what it is made of (a search, a resolve).
template <class Render>
http::response read_response(const http::request& req, const etag_text& etag, Render&& render, read_caches caches) {
  return read_response(req, etag, std::forward<Render>(render), caches, [] { return std::optional<page_content>{}; });
}

}  // namespace z402::routes
