#include "wire/url.hpp"

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

constexpr char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

void append_lower(std::string& out, std::string_view s) {
  auto at = out.size();
  out.resize(at + s.size());
  std::transform(s.begin(), s.end(), out.begin() + static_cast<std::ptrdiff_t>(at), lower);
}

bool equals_lower(std::string_view s, std::string_view lowered) {
  return s.size() == lowered.size() && std::equal(s.begin(), s.end(), lowered.begin(), [](char a, char b) { return lower(a) == b; });
}

constexpr bool is_scheme_char(char c) { return is_alnum(c) || c == '+' || c == '-' || c == '.'; }

constexpr bool is_host_char(char c) { return is_alnum(c) || c == '-' || c == '.' || c == '_' || c == '~'; }

// RFC 3986 characters allowed in path, query and fragment (plus '%' for escapes).
constexpr bool is_url_char(char c) {
  if (c <= 0x20 || c >= 0x7f) return false;
  switch (c) {
    case '"': case '<': case '>': case '\\': case '^': case '`': case '{': case '|': case '}':
      return false;
    default:
      return true;
  }
}

template <class Pred>
constexpr bool all_of(std::string_view s, Pred pred) {
  for (char c : s)
    if (!pred(c)) return false;
  return true;
}

// 1 to 65535 in decimal digits.
constexpr bool is_port(std::string_view s) {
  if (s.empty() || s.size() > 5 || !all_of(s, is_digit)) return false;
  unsigned number = 0;
  for (char c : s) number = number * 10 + static_cast<unsigned>(c - '0');
  return number >= 1 && number <= 65535;
}

// An absolute URL's parts as they stand in its text (scheme and host not yet lower-cased): the
// one parse behind parse_absolute_url and canonical_resource_of, which copies none of them
// (every settle names its item by its URL: profile.md, 2026-12-03).
struct url_text {
  std::string_view scheme, userinfo, host, port, path, query, fragment;
  bool has_userinfo = false;
};

expected<url_text> split_url(std::string_view text) {
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) return refused("", "contains a control character");
    if (u >= 0x80) return refused("", "must be ASCII (percent-encode other characters)");
  }
  auto colon = text.find("://");
  if (colon == std::string_view::npos || colon == 0 || !all_of(text.substr(0, colon), is_scheme_char) || !is_alpha(text[0]))
    return refused("", "must be an absolute URL (scheme://host/path)");
  url_text url;
  url.scheme = text.substr(0, colon);
  auto rest = text.substr(colon + 3);
  auto authority_end = std::find_if(rest.begin(), rest.end(), [](char c) { return c == '/' || c == '?' || c == '#'; }) - rest.begin();
  auto authority = rest.substr(0, static_cast<std::size_t>(authority_end));
  auto tail = rest.substr(static_cast<std::size_t>(authority_end));
  if (auto at = authority.rfind('@'); at != std::string_view::npos) {
    url.has_userinfo = true;
    url.userinfo = authority.substr(0, at);
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
    if (inner.empty() || !all_of(inner, [](char c) { return is_hex_digit(c) || c == ':' || c == '.'; }))
      return refused("", "has an invalid IPv6 host");
  } else if (auto c = authority.rfind(':'); c != std::string_view::npos) {
    host = authority.substr(0, c);
    port = authority.substr(c + 1);
    port_given = true;
  }
  if (host.empty()) return refused("", "has no host");
  if (host.front() != '[' && !all_of(host, is_host_char)) return refused("", "has an invalid host");
  if (port_given && !is_port(port)) return refused("", "has an invalid port");
  if (!all_of(tail, is_url_char)) return refused("", "contains a character that must be percent-encoded");
  url.host = host;
  url.port = port;
  if (auto hash = tail.find('#'); hash != std::string_view::npos) {
    url.fragment = tail.substr(hash + 1);
    tail = tail.substr(0, hash);
  }
  if (auto q = tail.find('?'); q != std::string_view::npos) {
    url.query = tail.substr(q + 1);
    tail = tail.substr(0, q);
  }
  url.path = tail;
  return url;
}

// The origin, scheme and host lower-cased, appended to `out`, whose room the caller reserved.
void append_origin(std::string& out, std::string_view scheme, std::string_view host, std::string_view port) {
  append_lower(out, scheme);
  out.append("://");
  append_lower(out, host);
  bool default_port = (equals_lower(scheme, "https") && port == "443") || (equals_lower(scheme, "http") && port == "80");
  if (!port.empty() && !default_port) out.append(":").append(port);
}

std::size_t origin_size(std::string_view scheme, std::string_view host, std::string_view port) {
  return scheme.size() + 3 + host.size() + 1 + port.size();
}

void append_canonical(std::string& out, std::string_view scheme, std::string_view host, std::string_view port,
                      std::string_view path, std::optional<std::string_view> route_template) {
  if (route_template) path = *route_template;
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  if (path.empty()) path = "/";
  out.reserve(out.size() + origin_size(scheme, host, port) + path.size());
  append_origin(out, scheme, host, port);
  out.append(path);
}

}  // namespace

expected<url_parts> parse_absolute_url(std::string_view text) {
  auto parsed = split_url(text);
  if (!parsed) return parsed.error();
  url_parts url;
  append_lower(url.scheme, parsed->scheme);
  url.userinfo = parsed->userinfo;
  url.has_userinfo = parsed->has_userinfo;
  append_lower(url.host, parsed->host);
  url.port = parsed->port;
  url.path = parsed->path;
  url.query = parsed->query;
  url.fragment = parsed->fragment;
  return url;
}

std::string origin_of(const url_parts& url) {
  std::string out;
  out.reserve(origin_size(url.scheme, url.host, url.port));
  append_origin(out, url.scheme, url.host, url.port);
  return out;
}

std::string canonical_resource(const url_parts& url, std::optional<std::string_view> route_template) {
  std::string out;
  append_canonical(out, url.scheme, url.host, url.port, url.path, route_template);
  return out;
}

expected<void> append_canonical_resource(std::string& out, std::string_view text, std::optional<std::string_view> route_template) {
  auto url = split_url(text);
  if (!url) return url.error();
  append_canonical(out, url->scheme, url->host, url->port, url->path, route_template);
  return {};
}

expected<std::string> canonical_resource_of(std::string_view text, std::optional<std::string_view> route_template) {
  std::string out;
  if (auto e = append_canonical_resource(out, text, route_template); !e) return e.error();
  return out;
}

expected<std::string> same_origin_redirect(std::string_view from, std::string_view location) {
  auto base = parse_absolute_url(from);
  if (!base) return base.error();
  auto refused_as = [](std::string reason) { return error{errc::forbidden, "Location", std::move(reason)}; };
  std::string target;
  if (location.starts_with("//")) target = base->scheme + ":" + std::string{location};
  else if (location.starts_with("/")) target = origin_of(*base) + std::string{location};
  else if (location.find("://") != std::string_view::npos) target = std::string{location};
  else return refused_as("redirects by a relative reference (" + std::string{location.substr(0, 100)} + ")");
  auto next = parse_absolute_url(target);
  if (!next) return refused_as("redirects to a URL that is not one: " + next.error().reason);
  if (next->has_userinfo) return refused_as("redirects to a URL with userinfo");
  if (origin_of(*next) != origin_of(*base)) return refused_as("redirects to another origin: " + origin_of(*next));
  return target;
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

expected<std::string> percent_decode(std::string_view s, percent_decoding how) {
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
      if (how == percent_decoding::form) return refused("", "has a malformed percent-escape (% not followed by two hex digits)");
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
