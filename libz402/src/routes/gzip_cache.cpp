#include "routes/gzip_cache.hpp"

#include "z402/core/gzip.hpp"

#include <vector>

namespace z402::routes {

std::string gzip(const http::response_text& page) {
  std::vector<std::string_view> parts;
  parts.reserve(page.pieces.size() + 2);
  parts.emplace_back(page);
  for (auto& p : page.pieces) parts.emplace_back(static_cast<const char*>(p.data()), p.size());
  parts.emplace_back(page.suffix);
  return compression::gzip(parts, page.payload_size());
}

}  // namespace z402::routes
