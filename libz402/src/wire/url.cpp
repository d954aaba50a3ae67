#include "z402/wire/url.hpp"

#include <algorithm>

namespace z402::wire {
namespace {

// A URL's syntax is ASCII (RFC 3986 §2), whatever locale an embedding program set; and every
// settle parses its resource URL, where <cctype>'s calls into the C library's tables were a
// quarter of the URL's parse (profile.md, 2026-12-03).
constexpr bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }
constexpr bool is_alnum(char c) { return is_alpha(c) || is_digit(c); }
constexpr bool is_hex_digit(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

std::string lower(std::string_view s) {
  std::string out{s};
  for (auto& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

bool is_scheme_char(char c) { return is_alnum(c) || c == '+' || c == '-' || c == '.'; }

bool is_host_char(char c) { return is_alnum(c) || c == '-' || c == '.' || c == '_' || c == '~'; }

// RFC 3986 characters allowed in path, query and fragment (plus '%' for escapes).
bool is_url_char(char c) {
  if (c <= 0x20 || c >= 0x7f) return false;
  switch (c) {
    case '"': case '<': case '>': case '\\': case '^': case '`': case '{': case '|': case '}':
      return false;
    default:
      return true;
  }
}

}  // namespace

expected<url_parts> parse_absolute_url(std::string_view text) {
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) return refused("", "contains a control character");
    if (u >= 0x80) return refused("", "must be ASCII (percent-encode other characters)");
  }
  auto colon = text.find("://");
  if (colon == std::string_view::npos || colon == 0 ||
      !std::all_of(text.begin(), text.begin() + colon, is_scheme_char) ||
      !is_alpha(text[0])) {
    return refused("", "must be an absolute URL (scheme://host/path)");
  }
  url_parts url;
  url.scheme = lower(text.substr(0, colon));
  auto rest = text.substr(colon + 3);
  auto authority_end = rest.find_first_of("/?#");
  auto authority = rest.substr(0, authority_end);
  auto tail = authority_end == std::string_view::npos ? std::string_view{} : rest.substr(authority_end);
  if (auto at = authority.rfind('@'); at != std::string_view::npos) {
    url.has_userinfo = true;
    url.userinfo = std::string{authority.substr(0, at)};
    authority = authority.substr(at + 1);
  }
  std::string_view host = authority, port;
  bool port_given = false;  // a ':' after the host (an IPv6 literal's own colons are not one)
  if (!authority.empty() && authority.front() == '[') {
    auto close = authority.find(']');
    if (close == std::string_view::npos) return refused("", "has an unterminated IPv6 host");
    host = authority.substr(0, close + 1);
    auto after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return refused("", "has an invalid host");
      port = after.substr(1);
      port_given = true;
    }
    auto inner = host.substr(1, host.size() - 2);
    if (inner.empty() || !std::all_of(inner.begin(), inner.end(), [](char c) {
          return is_hex_digit(c) || c == ':' || c == '.';
        })) {
      return refused("", "has an invalid IPv6 host");
    }
  } else if (auto c = authority.rfind(':'); c != std::string_view::npos) {
    host = authority.substr(0, c);
    port = authority.substr(c + 1);
    port_given = true;
  }
  if (host.empty()) return refused("", "has no host");
  if (host.front() != '[' && !std::all_of(host.begin(), host.end(), is_host_char)) {
    return refused("", "has an invalid host");
  }
  if (port_given && (port.empty() || port.size() > 5 ||
      !std::all_of(port.begin(), port.end(), is_digit) ||
      std::stoul(std::string{port}) > 65535 || std::stoul(std::string{port}) == 0)) {
    return refused("", "has an invalid port");
  }
  if (!std::all_of(tail.begin(), tail.end(), is_url_char)) {
    return refused("", "contains a character that must be percent-encoded");
  }
  url.host = lower(host);
  url.port = std::string{port};
  auto hash = tail.find('#');
  if (hash != std::string_view::npos) {
    url.fragment = std::string{tail.substr(hash + 1)};
    tail = tail.substr(0, hash);
  }
  auto q = tail.find('?');
  if (q != std::string_view::npos) {
    url.query = std::string{tail.substr(q + 1)};
    tail = tail.substr(0, q);
  }
  url.path = std::string{tail};
  return url;
}

namespace {

// The origin appended to `out`, whose room the caller reserved: every settle names its item by
// its canonical resource, which was five strings made and joined.
void append_origin(std::string& out, const url_parts& url) {
  out.append(url.scheme).append("://").append(url.host);
  bool default_port = (url.scheme == "https" && url.port == "443") || (url.scheme == "http" && url.port == "80");
  if (!url.port.empty() && !default_port) out.append(":").append(url.port);
}

std::size_t origin_size(const url_parts& url) { return url.scheme.size() + 3 + url.host.size() + 1 + url.port.size(); }

}  // namespace

std::string origin_of(const url_parts& url) {
  std::string out;
  out.reserve(origin_size(url));
  append_origin(out, url);
  return out;
}

std::string canonical_resource(const url_parts& url, std::optional<std::string_view> route_template) {
  std::string_view path = route_template ? *route_template : std::string_view{url.path};
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  if (path.empty()) path = "/";
  std::string out;
  out.reserve(origin_size(url) + path.size());
  append_origin(out, url);
  return out.append(path);
}

bool is_address_like_host(std::string_view host) {
  if (host.empty()) return true;
  if (host.front() == '[') return true;
  if (host == "localhost" || (host.size() > 10 && host.substr(host.size() - 10) == ".localhost")) return true;
  auto all_of = [&](auto pred) { return std::all_of(host.begin(), host.end(), pred); };
  // Digits or hex digits alone (with dots) are numeric addresses in disguise: 2130706433, 7f000001.
  if (all_of([](char c) { return is_hex_digit(c) || c == '.'; })) return true;
  return host.size() > 2 && host[0] == '0' && host[1] == 'x';
}

std::optional<std::string> percent_decode(std::string_view s, percent_decoding how) {
  auto hex_value = [](char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+' && how == percent_decoding::form) {
      out.push_back(' ');
      continue;
    }
    if (s[i] != '%') {
      out.push_back(s[i]);
      continue;
    }
    int hi = i + 2 < s.size() ? hex_value(s[i + 1]) : -1, lo = i + 2 < s.size() ? hex_value(s[i + 2]) : -1;
    if (hi < 0 || lo < 0) {
      if (how == percent_decoding::form) return std::nullopt;
      out.push_back(s[i]);
      continue;
    }
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

std::string query_escape(std::string_view s) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (is_alnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(c);
    } else {
      auto byte = static_cast<unsigned char>(c);
      out.push_back('%');
      out.push_back(hex[byte >> 4]);
      out.push_back(hex[byte & 15]);
    }
  }
  return out;
}

}  // namespace z402::wire
