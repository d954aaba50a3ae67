#pragma once
// The Services page's files, embedded in the binary at build time (cmake/EmbedAssets.cmake),
// so serving the page needs no install step and no files beside the binary.
#include <string_view>

namespace z402::routes {

struct web_asset {
  std::string_view name;          // "services.js"
  std::string_view content_type;
  std::string_view etag;          // quoted, from the content's SHA-256
  std::string_view body;
};

const web_asset* find_web_asset(std::string_view name);

}  // namespace z402::routes
