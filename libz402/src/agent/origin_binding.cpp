#include "z402/agent/origin_binding.hpp"

#include "z402/rules/text.hpp"
#include "z402/wire/json.hpp"
#include "z402/wire/payment_required.hpp"
#include "wire/url.hpp"

#include <boost/json/array.hpp>

#include <algorithm>

namespace z402::agent {
namespace {

namespace json = boost::json;

constexpr std::size_t max_header_bytes = 64u << 10;  // what the client allows an answer's headers
constexpr std::size_t max_402_bytes = 256u << 10;
constexpr std::size_t max_depth = 64;

origin_verdict refused(std::string check, std::string reason) {
  return {false, std::move(check), rules::terminal_safe(reason)};
}

std::string_view text_of(const json::value* v) {
  return v && v->is_string() ? std::string_view{v->get_string()} : std::string_view{};
}

std::vector<std::string_view> segments_of(std::string_view path) {
  std::vector<std::string_view> out;
  while (!path.empty()) {
    if (path.front() == '/') path.remove_prefix(1);
    auto end = path.find('/');
    out.push_back(path.substr(0, end));
    path = end == std::string_view::npos ? std::string_view{} : path.substr(end);
  }
  return out;
}

bool is_parameter(std::string_view segment) { return segment.size() > 1 && segment.front() == ':'; }

/// An entry's URL with each "{name}" (an OpenAPI-style parameter, which a URL may not hold) as
/// ":name", so one parser reads both ways of writing a route.
std::string colon_parameters(std::string_view url) {
  std::string out;
  out.reserve(url.size());
  for (std::size_t i = 0; i < url.size(); ++i) {
    auto close = url[i] == '{' ? url.find('}', i) : std::string_view::npos;
    if (close == std::string_view::npos || close == i + 1) {
      out.push_back(url[i]);
      continue;
    }
    out.append(":").append(url.substr(i + 1, close - i - 1));
    i = close;
  }
  return out;
}

/// Whether the manifest's `pattern` path (":name" segments match any one) names the listing's
/// `path` (itself a pattern when the catalog lists a route template).
bool path_matches(std::string_view pattern, std::string_view path) {
  if (pattern == path) return true;
  auto want = segments_of(pattern), have = segments_of(path);
  if (want.size() != have.size()) return false;
  for (std::size_t i = 0; i < want.size(); ++i)
    if (want[i] != have[i] && !(is_parameter(want[i]) && !have[i].empty())) return false;
  return true;
}

/// The URL a manifest entry describes.
std::string_view entry_url(const json::object& entry) {
  if (auto url = text_of(entry.if_contains("url")); !url.empty()) return url;
  auto* resource = entry.if_contains("resource");
  if (resource && resource->is_object()) return text_of(resource->get_object().if_contains("url"));
  return text_of(resource);
}

struct manifest_read {
  std::optional<json::object> manifest;
  origin_verdict failure;
};

/// GET `url` and the same-origin redirects it leads to; the final answer's body as JSON.
manifest_read read_manifest(http::client& client, std::string url, const origin_policy& policy,
                            std::chrono::steady_clock::time_point deadline, bool& not_found) {
  not_found = false;
  for (int hop = 0;; ++hop) {
    http::client_request req;
    req.url = url;
    req.public_addresses_only = !policy.allow_private;
    req.headers.emplace_back("Accept", "application/json");
    std::size_t budget = policy.max_manifest_bytes + max_header_bytes;
    auto answer = client.fetch(req, deadline, budget);
    auto too_large = [&] {
      return manifest_read{std::nullopt, refused("manifest", "the manifest is larger than " + std::to_string(policy.max_manifest_bytes >> 10) + " KiB")};
    };
    if (!answer) {
      if (answer.error().code == errc::body_too_large) return too_large();
      return {std::nullopt, refused("manifest", "GET " + url + ": " + answer.error().reason)};
    }
    auto status = answer->result_int();
    if (status == 301 || status == 302 || status == 303 || status == 307 || status == 308) {
      if (hop == policy.max_redirects)
        return {std::nullopt, refused("manifest", "more than " + std::to_string(policy.max_redirects) + " redirects from " + url)};
      auto location = answer->find(http::bhttp::field::location);
      if (location == answer->end()) return {std::nullopt, refused("manifest", url + " redirects without a Location")};
      // Every hop is checked against the one before, all on the manifest's origin by induction.
      auto next = wire::same_origin_redirect(url, {location->value().data(), location->value().size()});
      if (!next) return {std::nullopt, refused("manifest", url + " " + next.error().reason)};
      url = std::move(*next);
      continue;
    }
    if (status != 200) {
      not_found = status == 404;
      return {std::nullopt, refused("manifest", "GET " + url + " answered " + std::to_string(status))};
    }
    if (answer->body().size() > policy.max_manifest_bytes) return too_large();
    auto doc = wire::parse_strict(answer->body(), max_depth);
    if (!doc || !doc->is_object()) return {std::nullopt, refused("manifest", url + " is not a JSON object")};
    return {std::move(doc->as_object()), {}};
  }
}

/// The first payTo of `want` missing from `have`, or nullptr when every one is there.
const std::string* missing(const std::vector<std::string>& want, const std::vector<std::string>& have) {
  for (auto& p : want)
    if (std::find(have.begin(), have.end(), p) == have.end()) return &p;
  return nullptr;
}

std::string listed(const std::vector<std::string>& pay_tos) {
  std::string out;
  for (auto& p : pay_tos) out.append(out.empty() ? "" : ", ").append(p.substr(0, 120));
  return out.empty() ? std::string{"none"} : out;
}

}  // namespace

std::string origin_verdict::line() const {
  return verified ? std::string{"origin-verified"} : "not origin-verified (" + check + ": " + reason + ")";
}

std::optional<std::vector<std::string>> manifest_pay_tos(const json::object& manifest, std::string_view method,
                                                         std::string_view resource_url) {
  auto resource = wire::parse_absolute_url(resource_url);
  if (!resource) return std::nullopt;
  std::optional<std::vector<std::string>> found;
  for (auto key : {"routes", "items", "resources"}) {
    auto* entries = manifest.if_contains(key);
    if (!entries || !entries->is_array()) continue;
    for (auto& e : entries->get_array()) {
      auto* entry = e.if_object();
      if (!entry) continue;
      auto url = wire::parse_absolute_url(colon_parameters(entry_url(*entry)));
      if (!url || wire::origin_of(*url) != wire::origin_of(*resource) || !path_matches(url->path, resource->path)) continue;
      if (auto m = text_of(entry->if_contains("method")); !m.empty() && m != method) continue;
      if (!found) found.emplace();
      for (auto& p : wire::pay_tos_of(*entry)) found->push_back(std::move(p));
    }
  }
  return found;
}

std::optional<origin_verdict> url_refusal(std::string_view resource_url, const origin_policy& policy) {
  auto resource = wire::parse_absolute_url(resource_url);
  if (!resource) return refused("url", "the resource URL is not one: " + resource.error().reason);
  if (resource->has_userinfo) return refused("url", "the resource URL carries userinfo");
  if (policy.require_https && resource->scheme != "https") return refused("url", "the resource is not https: origins are read over HTTPS only");
  return std::nullopt;
}

origin_verdict check_manifest(http::client& client, std::string_view method, std::string_view resource_url,
                              const std::vector<std::string>& pay_tos, const origin_policy& policy,
                              std::chrono::steady_clock::time_point deadline) {
  if (auto refusal = url_refusal(resource_url, policy)) return std::move(*refusal);
  auto resource = wire::parse_absolute_url(resource_url);
  if (pay_tos.empty()) return refused("url", "the listing names no payTo");
  auto origin = wire::origin_of(*resource);
  bool not_found = false;
  auto read = read_manifest(client, origin + "/.well-known/x402", policy, deadline, not_found);
  // The manifest's other name (the proposal for origin-hosted discovery serves x402.json).
  if (!read.manifest && not_found) read = read_manifest(client, origin + "/.well-known/x402.json", policy, deadline, not_found);
  if (!read.manifest) return std::move(read.failure);
  auto named = manifest_pay_tos(*read.manifest, method, resource_url);
  if (!named) return refused("manifest", "the origin's manifest lists no " + std::string{method} + " " + std::string{resource_url});
  if (auto* absent = missing(pay_tos, *named))
    return refused("manifest-payTo", "the origin names payTo " + listed(*named) + " for this resource, not " + absent->substr(0, 120));
  return {true, "", ""};
}

origin_verdict verify_origin(http::client& client, const json::object& item, const origin_policy& policy) {
  auto deadline = std::chrono::steady_clock::now() + policy.deadline;
  if (text_of(item.if_contains("type")) == "mcp") return refused("url", "an MCP tool's listing is not bound to an origin by this check");
  auto url = text_of(item.if_contains("resource"));
  auto method = text_of(wire::find_path(item, {"extensions", "bazaar", "info", "input", "method"}));
  if (method.empty()) method = "GET";
  auto pay_tos = wire::pay_tos_of(item);
  auto verdict = check_manifest(client, method, url, pay_tos, policy, deadline);
  if (!verdict.verified) return verdict;

  http::client_request unpaid;
  unpaid.url = std::string{url};
  unpaid.method = http::bhttp::string_to_verb(method);
  if (unpaid.method == http::bhttp::verb::unknown) return refused("402", "the listing's method " + std::string{method} + " is not HTTP's");
  unpaid.public_addresses_only = !policy.allow_private;
  std::size_t budget = max_402_bytes;
  auto answer = client.fetch(unpaid, deadline, budget);
  if (!answer) return refused("402", "an unpaid " + std::string{method} + " of the resource: " + answer.error().reason);
  if (answer->result_int() != 402)
    return refused("402", "the resource answered " + std::to_string(answer->result_int()) + " unpaid, not 402 Payment Required");
  auto header = answer->find("PAYMENT-REQUIRED");
  auto required = wire::payment_required_of(
      header == answer->end() ? std::nullopt : std::optional<std::string_view>{header->value()}, answer->body());
  if (!required) return refused("402", "the 402 carries no PaymentRequired");
  auto asked = wire::pay_tos_of(required->required);
  if (auto* absent = missing(pay_tos, asked))
    return refused("402-payTo", "the live 402 asks payTo " + listed(asked) + ", not " + absent->substr(0, 120));
  return {true, "", ""};
}

}  // namespace z402::agent
