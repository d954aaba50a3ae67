#pragma once
// Compressed catalog pages: gzip (RFC 1952) of a page, made once per ETag and shared by every
// io thread (etag_cache: a page being compressed by one reader is answered uncompressed to
// the others, who do not wait; gzip is the client's offer, not a demand).
#include "routes/etag_cache.hpp"
#include "z402/http/message.hpp"
#include "http/page_file.hpp"

#include <optional>

#include <string>
#include <string_view>

namespace z402::routes {

/// A page compressed: its bytes, or over 4 KiB a file holding them, which plain TCP sends with
/// sendfile and TLS reads into records, as it does a plain page (page_file.hpp). `bytes` is
/// empty when the file holds them.
struct compressed_page {
  std::string bytes;
  std::optional<http::page_file> file;
};

/// 256 pages (32 sets of 8) of any size, and at most 8 MiB of them (a limit=100 page is 9 KB
/// compressed).
using gzip_cache = etag_cache<compressed_page, 32>;
constexpr std::size_t gzip_cache_budget = 8u << 20;

/// gzip of a page of pieces (core/gzip.hpp), streamed through zlib without flattening it first.
std::string gzip(const http::response_text& page);

}  // namespace z402::routes
