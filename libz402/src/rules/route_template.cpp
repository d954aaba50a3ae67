#include "rules/route_template.hpp"

#include "wire/url.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace z402::rules {

bool is_valid_route_template(std::string_view t) {
  auto allowed = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '/' || c == ':' || c == '.' ||
           c == '-' || c == '~' || c == '%';
  };
  if (t.size() < 2 || t.front() != '/' || !std::all_of(t.begin(), t.end(), allowed)) return false;
  std::string current{t};
  for (int pass = 0; pass <= 5; ++pass) {
    if (current.find("..") != std::string::npos || current.find("://") != std::string::npos) return false;
    auto next = *wire::percent_decode(current, wire::percent_decoding::lenient);
    if (next == current) return true;
    if (pass == 5) return false;
    current = std::move(next);
  }
  return false;
}

}  // namespace z402::rules
