#pragma once
// Absolute URLs as the catalog sees them, and the canonical resource that gives an item its
// identity (docs/contract.md §2, docs/wire.md §3.5).
#include "z402/error.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace z402::wire {

struct url_parts {
  std::string scheme;    // lower-cased
  std::string userinfo;  // empty when absent
  bool has_userinfo = false;
  std::string host;      // lower-cased; IPv6 literals keep their brackets
  std::string port;      // digits, empty when absent
  std::string path;      // starts with '/' or is empty
  std::string query;     // without '?'
  std::string fragment;  // without '#'
};

/// Parses an absolute `scheme://authority/path?query#fragment` URL of printable ASCII;
/// invalid_request with the reason when it is not one (the caller names the field).
expected<url_parts> parse_absolute_url(std::string_view text);

/// scheme://host[:port] with the default port (80 for http, 443 for https) dropped.
std::string origin_of(const url_parts& url);

/// The canonical resource: origin plus `route_template` (when given) or the path, with the
/// trailing slash dropped except for "/"; query, fragment and userinfo dropped.
std::string canonical_resource(const url_parts& url, std::optional<std::string_view> route_template);

/// canonical_resource of the URL `text`, refused as parse_absolute_url refuses it, with none of
/// its parts copied on the way (every settle names its item by its URL).
expected<std::string> canonical_resource_of(std::string_view text, std::optional<std::string_view> route_template);
/// The same, appended to `out` (nothing appended when refused): a settle copies it into its own
/// text from a buffer its thread keeps.
expected<void> append_canonical_resource(std::string& out, std::string_view text, std::optional<std::string_view> route_template);

/// How percent_decode reads `%XX` escapes.
enum class percent_decoding {
  form,     // a query string (application/x-www-form-urlencoded): "+" is a space, and a
            // malformed escape refuses the whole text
  lenient,  // a path as a seller wrote it: "+" stays, a malformed escape is kept as written
};
/// `s` with its escapes decoded; refused (invalid_request) only when `form` finds a malformed escape.
expected<std::string> percent_decode(std::string_view s, percent_decoding how);
/// `s` as a query parameter value: every byte but unreserved characters as %XX (RFC 3986).
std::string query_escape(std::string_view s);

/// The absolute URL a redirect from `from` to `location` leads to, when it stays on `from`'s
/// origin: `location` an absolute URL, a network-path ("//host/...") or an absolute path
/// ("/..."). Refused (field "Location") for another origin, userinfo, or another relative
/// reference (a client reading a fixed path is sent an absolute one); the reason reads after the
/// name of what redirected ("redirects to another origin: ...").
expected<std::string> same_origin_redirect(std::string_view from, std::string_view location);

/// Whether the host is an IP literal, all digits (a decimal IPv4 in disguise), hexadecimal
/// (0x...), or a loopback name: hosts an icon URL may not name.
bool is_address_like_host(std::string_view host);

}  // namespace z402::wire
