#include "z402/rules/settlement.hpp"

#include "z402/rules/route_template.hpp"
#include "z402/rules/text.hpp"
#include "z402/wire/json.hpp"
#include "z402/wire/url.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace z402::rules {
namespace {

constexpr std::array<std::pair<std::string_view, std::string_view>, 13> v1_networks{{
    {"base", "eip155:8453"},
    {"base-sepolia", "eip155:84532"},
    {"avalanche", "eip155:43114"},
    {"avalanche-fuji", "eip155:43113"},
    {"polygon", "eip155:137"},
    {"polygon-amoy", "eip155:80002"},
    {"sei", "eip155:1329"},
    {"sei-testnet", "eip155:1328"},
    {"iotex", "eip155:4689"},
    {"solana", "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"},
    {"solana-devnet", "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"},
    {"zcash", "zcash:mainnet"},
    {"zcash-regtest", "zcash:regtest"},
}};

const boost::json::object* object_at(const boost::json::object& o, std::string_view key) {
  auto* v = o.if_contains(key);
  return v ? v->if_object() : nullptr;
}

// The item a payment names: HTTP by method (GET by default), MCP by toolName.
std::optional<field_error> identify(const boost::json::object* input, const std::string& input_path,
                                    std::string& type, std::string& selector) {
  type = "http";
  selector = "GET";
  if (!input) return std::nullopt;
  if (auto* t = wire::find_string(*input, "type"); t && *t == "mcp") {
    auto* tool = wire::find_string(*input, "toolName");
    if (!tool || !is_printable_ascii(*tool, 128))
      return field_error{input_path + ".toolName", "must name the MCP tool: 1-128 printable ASCII characters"};
    type = "mcp";
    selector = tool->c_str();
    return std::nullopt;
  }
  if (auto* m = input->if_contains("method")) {
    auto* s = m->if_string();
    static constexpr std::string_view methods[] = {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"};
    if (!s || std::find(std::begin(methods), std::end(methods), std::string_view{*s}) == std::end(methods))
      return field_error{input_path + ".method", "must be one of GET, POST, PUT, PATCH, DELETE, HEAD"};
    selector = s->c_str();
  }
  return std::nullopt;
}

}  // namespace

std::string normalise_network(std::string_view network) {
  for (auto& [v1, caip2] : v1_networks)
    if (network == v1) return std::string{caip2};
  return std::string{network};
}

std::optional<settlement> derive_settlement(const boost::json::value& body, field_error& error) {
  auto fail = [&](std::string field, std::string reason) {
    error = {std::move(field), std::move(reason)};
    return std::nullopt;
  };
  auto* root = body.if_object();
  if (!root) return fail("", "the body must be a JSON object");
  auto* version = root->if_contains("x402Version");
  std::int64_t v = version && version->is_int64() ? version->as_int64() : 0;
  if (v != 1 && v != 2) return fail("x402Version", "must be 1 or 2");
  auto* req = object_at(*root, "paymentRequirements");
  if (!req) return fail("paymentRequirements", "is required and must be an object");
  auto* payload = object_at(*root, "paymentPayload");
  if (!payload) return fail("paymentPayload", "is required and must be an object");
  auto* pay_to = wire::find_string(*req, "payTo");
  if (!pay_to || pay_to->empty()) return fail("paymentRequirements.payTo", "is required");

  settlement s;
  s.pay_to = pay_to->c_str();
  s.requirements = *req;
  const boost::json::object* input = nullptr;
  std::string input_path;
  std::optional<std::string_view> route_template;
  const boost::json::string* url = nullptr;
  if (v == 2) {
    auto* resource = object_at(*payload, "resource");
    url = resource ? wire::find_string(*resource, "url") : nullptr;
    if (!url) return fail("paymentPayload.resource.url", "is required");
    if (auto* mime = resource->if_contains("mimeType")) s.mime_type = *mime;
    if (auto* ext = object_at(*payload, "extensions"))
      if (auto* bazaar = ext->if_contains("bazaar")) {
        s.bazaar = *bazaar;
        if (auto* b = bazaar->if_object()) {
          if (auto* info = object_at(*b, "info")) input = object_at(*info, "input");
          if (auto* rt = wire::find_string(*b, "routeTemplate"); rt && is_valid_route_template(*rt))
            route_template = std::string_view{*rt};  // an invalid template is ignored (bazaar-wire.md §3)
        }
      }
    input_path = "paymentPayload.extensions.bazaar.info.input";
  } else {
    // v1: the resource and the discovery data live in the requirements.
    url = wire::find_string(*req, "resource");
    if (!url) return fail("paymentRequirements.resource", "is required");
    if (auto* mime = req->if_contains("mimeType")) s.mime_type = *mime;
    if (auto* output_schema = object_at(*req, "outputSchema")) input = object_at(*output_schema, "input");
    input_path = "paymentRequirements.outputSchema.input";
    boost::json::object normalised;
    for (auto key : {"scheme", "network", "asset", "payTo", "maxTimeoutSeconds", "extra"})
      if (auto* f = req->if_contains(key)) normalised[key] = *f;
    if (auto* amount = req->if_contains("maxAmountRequired")) normalised["amount"] = *amount;
    if (auto* net = wire::find_string(normalised, "network")) normalised["network"] = normalise_network(*net);
    s.requirements = std::move(normalised);
  }
  std::string reason;
  auto parts = wire::parse_absolute_url(*url, reason);
  if (!parts) return fail(v == 2 ? "paymentPayload.resource.url" : "paymentRequirements.resource", reason);
  s.resource_url = url->c_str();
  std::string type, selector;
  if (auto e = identify(input, input_path, type, selector)) {
    error = *e;
    return std::nullopt;
  }
  s.identity = {type, wire::canonical_resource(*parts, route_template), selector};
  return s;
}

}  // namespace z402::rules

#include "z402/rules/bazaar_extension.hpp"
#include "z402/rules/item_fields.hpp"

#include <boost/json/serialize.hpp>

namespace z402::rules {

payment_item payment_only_fields(const settlement& s, const config::rail_terms& terms, bool allow_http) {
  payment_item out;
  auto fail = [&](std::string field, std::string reason) {
    out.fields.clear();
    out.error = field_error{std::move(field), std::move(reason)};
    return out;
  };
  wire::url_parts url;
  if (auto e = check_resource(boost::json::value(s.resource_url), allow_http, url))
    return fail("paymentPayload.resource.url", e->reason);
  if (auto e = check_accepts_entry(s.requirements, "paymentRequirements", terms, s.pay_to)) return fail(e->field, e->reason);
  out.fields = {{"resource", s.identity.resource},
                {"type", s.identity.type},
                {"x402Version", 2},
                {"accepts", boost::json::array{s.requirements}}};
  if (s.mime_type) {
    if (auto e = check_mime_type(*s.mime_type)) return fail("paymentPayload.resource.mimeType", e->reason);
    out.fields["mimeType"] = *s.mime_type;
  }
  if (s.bazaar) {
    bazaar_facts facts;
    if (auto e = check_bazaar_extension(*s.bazaar, route_template_policy::ignore_invalid, facts))
      return fail("paymentPayload." + e->field, e->reason);
    if (facts.input_type != s.identity.type)
      return fail("paymentPayload.extensions.bazaar.info.input.type", "must be " + s.identity.type);
    out.fields["extensions"] = boost::json::object{{"bazaar", *s.bazaar}};
  } else if (s.identity.type == "mcp") {
    return fail("paymentPayload.extensions.bazaar", "is required to list an MCP tool");
  }
  if (boost::json::serialize(out.fields).size() > max_item_bytes)
    return fail("paymentPayload", "the listed item would serialise to more than " + std::to_string(max_item_bytes) + " bytes");
  return out;
}

}  // namespace z402::rules
