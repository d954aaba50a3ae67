#include "rules/item_fields.hpp"

#include "z402/rules/text.hpp"

#include <algorithm>
#include <charconv>
#include <cctype>
#include <set>

namespace z402::rules {
namespace {

std::string short_text_rule() { return "must be 1-" + std::to_string(max_short_text) + " printable ASCII characters"; }

bool is_token(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::string_view{"!#$&^_.+-"}.find(c) != std::string_view::npos;
  });
}

// A URL field: a string of at most 2048 bytes that parses as an absolute URL without userinfo.
expected<void> parse_url_field(const boost::json::value& v, const char* field, wire::url_parts& url) {
  auto* s = v.if_string();
  if (!s) return refused(field, "must be a string");
  if (s->size() > max_url_bytes) return refused(field, "may be at most " + std::to_string(max_url_bytes) + " bytes");
  auto parsed = wire::parse_absolute_url(*s);
  if (!parsed) return refused(field, parsed.error().reason);
  if (parsed->has_userinfo) return refused(field, "may not carry userinfo (user:password@)");
  url = std::move(*parsed);
  return {};
}

}  // namespace

expected<void> check_resource(const boost::json::value& v, bool allow_http, wire::url_parts& url) {
  if (auto e = parse_url_field(v, "resource", url); !e) return e;
  if (url.scheme != "https" && !(allow_http && url.scheme == "http"))
    return refused("resource", allow_http ? "must be an http or https URL" : "must be an https URL");
  return {};
}

bool is_positive_u64_decimal(std::string_view s) {
  if (s.empty() || s.size() > 20 || s.front() == '0') return false;
  if (!std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) return false;
  return s.size() < 20 || s <= std::string_view{"18446744073709551615"};
}

std::optional<std::uint64_t> atomic_units(std::string_view s) {
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);  // unsigned: digits only
  if (s.empty() || ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  return v;
}

expected<void> check_accepts_entry(const boost::json::value& v, std::string_view path_view,
                                               const config::rail_terms& terms, std::string_view pay_to) {
  std::string path{path_view};
  auto* obj = v.if_object();
  if (!obj) return refused(path, "must be an object");
  for (auto& kv : *obj) {
    static const std::set<std::string_view> known{"scheme", "network", "amount", "asset", "payTo",
                                                  "maxTimeoutSeconds", "extra"};
    if (!known.count(kv.key())) return refused(path + "." + std::string{kv.key()}, "is not a field of an accepts entry");
  }
  auto expect_string = [&](const char* name, std::string_view want, const char* what) -> expected<void> {
    auto* f = obj->if_contains(name);
    if (!f) return refused(path + "." + name, "is required");
    auto* s = f->if_string();
    if (!s || std::string_view{*s} != want)
      return refused(path + "." + name, std::string{"must be "} + what + " \"" + std::string{want} + "\"");
    return {};
  };
  if (auto e = expect_string("scheme", terms.scheme, "the rail's scheme"); !e) return e;
  if (auto e = expect_string("network", terms.network, "the rail's network"); !e) return e;
  if (auto e = expect_string("asset", terms.asset, "the rail's asset"); !e) return e;
  if (auto e = expect_string("payTo", pay_to, "this provider's payTo"); !e) return e;
  auto* amount = obj->if_contains("amount");
  if (!amount) return refused(path + ".amount", "is required");
  if (!amount->is_string() || !is_positive_u64_decimal(amount->as_string()))
    return refused(path + ".amount", "must be a decimal string of a positive integer that fits in 64 bits");
  auto* timeout = obj->if_contains("maxTimeoutSeconds");
  if (!timeout) return refused(path + ".maxTimeoutSeconds", "is required");
  auto in_range = (timeout->is_int64() && timeout->as_int64() >= 1 && timeout->as_int64() <= max_timeout_seconds) ||
                  (timeout->is_uint64() && timeout->as_uint64() >= 1 && timeout->as_uint64() <= max_timeout_seconds);
  if (!in_range) return refused(path + ".maxTimeoutSeconds", "must be an integer from 1 to 3600");
  auto* extra = obj->if_contains("extra");
  if (!extra) return refused(path + ".extra", "is required: the rail's extra terms (z402-bazaar terms)");
  if (!extra->is_object() || extra->as_object() != terms.extra)
    return refused(path + ".extra", "must equal the rail's extra terms exactly (z402-bazaar terms)");
  return {};
}

expected<void> check_description(const boost::json::value& v) {
  auto* s = v.if_string();
  if (!s) return refused("description", "must be a string");
  if (auto shown = check_shown_text(*s, "description"); !shown) return shown;
  if (utf8_length(*s) > max_description_chars)
    return refused("description", "may be at most " + std::to_string(max_description_chars) + " characters");
  return {};
}

expected<void> check_mime_type(const boost::json::value& v) {
  auto* s = v.if_string();
  std::string_view text = s ? std::string_view{*s} : std::string_view{};
  auto slash = text.find('/');
  if (!s || text.size() > 127 || slash == std::string_view::npos || !is_token(text.substr(0, slash)) ||
      !is_token(text.substr(slash + 1)))
    return refused("mimeType", "must be a media type type/subtype (at most 127 characters, no parameters)");
  return {};
}

expected<void> check_service_name(const boost::json::value& v) {
  auto* s = v.if_string();
  if (!s || !is_printable_ascii(*s, max_short_text)) return refused("serviceName", short_text_rule());
  return {};
}

expected<void> check_tags(const boost::json::value& v) {
  auto* arr = v.if_array();
  if (!arr) return refused("tags", "must be an array of strings");
  if (arr->size() > max_tags) return refused("tags", "may hold at most " + std::to_string(max_tags) + " tags");
  std::set<std::string> seen;
  for (std::size_t i = 0; i < arr->size(); ++i) {
    std::string path = "tags[" + std::to_string(i) + "]";
    auto* s = (*arr)[i].if_string();
    if (!s || !is_printable_ascii(*s, max_short_text)) return refused(path, short_text_rule());
    std::string folded{s->c_str()};
    std::transform(folded.begin(), folded.end(), folded.begin(), [](unsigned char c) { return std::tolower(c); });
    if (!seen.insert(folded).second) return refused(path, "repeats another tag (tags are compared case-insensitively)");
  }
  return {};
}

expected<void> check_icon_url(const boost::json::value& v) {
  wire::url_parts url;
  if (auto e = parse_url_field(v, "iconUrl", url); !e) return e;
  if (url.scheme != "https" && url.scheme != "http") return refused("iconUrl", "must be an http or https URL");
  if (wire::is_address_like_host(url.host))
    return refused("iconUrl", "must name a host by its domain name (no IP address, loopback, numeric or hex host)");
  return {};
}

expected<void> check_z402_extension(const boost::json::value& v) {
  auto* obj = v.if_object();
  if (!obj) return refused("extensions.z402", "must be an object");
  for (auto& kv : *obj)
    if (kv.key() != "unit") return refused("extensions.z402." + std::string{kv.key()}, "is not a field of the z402 extension");
  auto* unit = obj->if_contains("unit");
  if (!unit || !unit->is_string() || !is_printable_ascii(unit->as_string(), max_short_text))
    return refused("extensions.z402.unit", short_text_rule());
  return {};
}

}  // namespace z402::rules
