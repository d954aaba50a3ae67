#pragma once
// The catalog pages kept in files (http::page_file) for sendfile, by ETag and place.
#include "http/page_file.hpp"
#include "routes/etag_cache.hpp"

#include <cstddef>

namespace z402::routes {

/// 128 pages (16 sets of 8), at most 8 MiB of them (a limit=100 page is 150 KB). The files are
/// memory the kernel holds for the process, not mapped into it: they are not in its RSS.
using page_files = etag_cache<http::page_file, 16>;
constexpr std::size_t page_files_budget = 8u << 20;

/// A body that is the file of `entry` (kept alive by the body).
inline http::response_text file_body(page_files::entry_ptr entry) {
  http::response_text body;
  auto& file = *entry->value;
  body.file = {std::move(entry), &file};
  return body;
}

}  // namespace z402::routes
