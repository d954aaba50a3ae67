// Resource URLs (wire/url.hpp) and seller route templates (rules/route_template.hpp): the two
// parts of an item's identity a provider writes.
#include "target.hpp"

#include "rules/route_template.hpp"
#include "wire/url.hpp"

#include <string>

Z402_FUZZ_TARGET(url) {
  using namespace z402;
  auto text = fuzz::text_of(data, size);
  // The first line is the URL, the rest a route template.
  auto split = text.find('\n');
  auto url_text = text.substr(0, split);
  auto route = split == std::string_view::npos ? std::string_view{} : text.substr(split + 1);
  auto url = wire::parse_absolute_url(url_text);
  bool route_ok = rules::is_valid_route_template(route);
  auto tpl = route_ok ? std::optional<std::string_view>{route} : std::nullopt;
  // The settle path's canonical form, made without the parts: the same answer, or the same refusal.
  auto direct = wire::canonical_resource_of(url_text, tpl);
  fuzz::require(direct.has_value() == url.has_value(), "canonical_resource_of accepts what parse_absolute_url accepts");
  if (!url) fuzz::require(direct.error().reason == url.error().reason, "canonical_resource_of refuses for the same reason");
  if (route_ok) {
    fuzz::require(route.starts_with('/'), "a route template starts with /");
    fuzz::require(route.find("..") == std::string_view::npos, "a route template has no ..");
  }
  if (!url) {
    fuzz::require(!url.error().reason.empty(), "a refused URL says why");
    return 0;
  }
  auto canonical = wire::canonical_resource(*url, tpl);
  fuzz::require(*direct == canonical, "canonical_resource_of is canonical_resource of the parts");
  auto again = wire::parse_absolute_url(canonical);
  fuzz::require(again.has_value(), "a canonical resource is itself a URL");
  fuzz::require(wire::canonical_resource(*again, std::nullopt) == canonical, "canonicalisation is stable");
  wire::is_address_like_host(url->host);
  auto escaped = wire::query_escape(url_text);
  for (char c : escaped)
    fuzz::require(std::isalnum(static_cast<unsigned char>(c)) || std::string_view{"-._~%"}.find(c) != std::string_view::npos,
                  "an escaped value holds unreserved characters and escapes only");
  return 0;
}
