#pragma once
// What a list page's bytes are made of: its items (each version by its serial, never reused in
// a run), how many items match, and its limit and offset. Two snapshots' pages with the same
// content are the same bytes, so a page a new version did not change takes the value made for
// the old one (compressed, or in a file) instead of making it again (every version
// made the 41 pages of the write load compress again, zlib 17 % of the server's samples with
// only heartbeats and changed declarations coming in).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace z402::routes {

struct page_content {
  std::size_t limit = 0;
  std::size_t offset = 0;
  std::size_t total = 0;
  bool calls_by_day = false;           // each item with its daily counts (they change with its serial)
  std::vector<std::uint64_t> serials;  // of the page's items, in order
  friend bool operator==(const page_content&, const page_content&) = default;
};

}  // namespace z402::routes
