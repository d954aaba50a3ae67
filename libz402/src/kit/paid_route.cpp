#include "z402/kit/paid_route.hpp"

namespace z402::kit {

std::optional<boost::json::object> match_pattern(std::string_view pattern, std::string_view path) {
  boost::json::object params;
  while (!pattern.empty() || !path.empty()) {
    if (pattern.empty() || path.empty() || pattern.front() != '/' || path.front() != '/') return std::nullopt;
    pattern.remove_prefix(1);
    path.remove_prefix(1);
    auto p_end = std::min(pattern.find('/'), pattern.size());
    auto s_end = std::min(path.find('/'), path.size());
    auto p_seg = pattern.substr(0, p_end);
    auto s_seg = path.substr(0, s_end);
    if (!p_seg.empty() && p_seg.front() == ':') {
      if (s_seg.empty()) return std::nullopt;
      params[p_seg.substr(1)] = s_seg;
    } else if (p_seg != s_seg) {
      return std::nullopt;
    }
    pattern.remove_prefix(p_end);
    path.remove_prefix(s_end);
  }
  return params;
}

}  // namespace z402::kit
