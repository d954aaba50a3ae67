#include "z402/rules/route_template.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace z402::rules {
namespace {

std::string percent_decode_once(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() &&
        std::isxdigit(static_cast<unsigned char>(s[i + 1])) && std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out.push_back(static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

}  // namespace

bool is_valid_route_template(std::string_view t) {
  auto allowed = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '/' || c == ':' || c == '.' ||
           c == '-' || c == '~' || c == '%';
  };
  if (t.size() < 2 || t.front() != '/' || !std::all_of(t.begin(), t.end(), allowed)) return false;
  std::string current{t};
  for (int pass = 0; pass <= 5; ++pass) {
    if (current.find("..") != std::string::npos || current.find("://") != std::string::npos) return false;
    auto next = percent_decode_once(current);
    if (next == current) return true;
    if (pass == 5) return false;
    current = std::move(next);
  }
  return false;
}

}  // namespace z402::rules
