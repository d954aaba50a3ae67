#include "z402/rules/settlement.hpp"

#include "z402/auth/crypto.hpp"

#include "z402/rules/bazaar_extension.hpp"
#include "z402/rules/item_fields.hpp"
#include "z402/rules/route_template.hpp"
#include "z402/rules/text.hpp"
#include "z402/wire/json.hpp"
#include "z402/wire/url.hpp"

#include <boost/json/serialize.hpp>

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
expected<void> identify(const boost::json::object* input, std::string_view input_path,
                                    std::string& type, std::string& selector) {
  type = "http";
  selector = "GET";
  if (!input) return {};
  if (auto* t = wire::find_string(*input, "type"); t && *t == "mcp") {
    auto* tool = wire::find_string(*input, "toolName");
    if (!tool || !is_printable_ascii(*tool, 128))
      return refused(std::string{input_path} + ".toolName", "must name the MCP tool: 1-128 printable ASCII characters");
    type = "mcp";
    selector = tool->c_str();
    return {};
  }
  if (auto* m = input->if_contains("method")) {
    auto* s = m->if_string();
    static constexpr std::string_view methods[] = {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"};
    if (!s || std::find(std::begin(methods), std::end(methods), std::string_view{*s}) == std::end(methods))
      return refused(std::string{input_path} + ".method", "must be one of GET, POST, PUT, PATCH, DELETE, HEAD");
    selector = s->c_str();
  }
  return {};
}

// Where the payer's echo and the server's requirements sit in a v1 or v2 body.
struct echo_view {
  int version = 2;
  const boost::json::object* requirements = nullptr;
  const boost::json::string* pay_to = nullptr;
  const boost::json::string* url = nullptr;
  std::string_view url_field;  // field names: literals, made into strings only for a refusal
  const boost::json::value* mime_type = nullptr;
  const boost::json::value* bazaar = nullptr;  // v2 only
  const boost::json::object* input = nullptr;  // bazaar info.input (v2) or outputSchema.input (v1)
  std::string_view input_path;
  std::optional<std::string_view> route_template;  // only a valid one
};

expected<echo_view> read_echo(const boost::json::value& body) {
  auto fail = [](std::string field, std::string reason) { return refused(std::move(field), std::move(reason)); };
  echo_view e;
  auto* root = body.if_object();
  if (!root) return fail("", "the body must be a JSON object");
  auto* version = root->if_contains("x402Version");
  e.version = version && version->is_int64() ? static_cast<int>(version->as_int64()) : 0;
  if (e.version != 1 && e.version != 2) return fail("x402Version", "must be 1 or 2");
  e.requirements = object_at(*root, "paymentRequirements");
  if (!e.requirements) return fail("paymentRequirements", "is required and must be an object");
  auto* payload = object_at(*root, "paymentPayload");
  if (!payload) return fail("paymentPayload", "is required and must be an object");
  e.pay_to = wire::find_string(*e.requirements, "payTo");
  if (!e.pay_to || e.pay_to->empty()) return fail("paymentRequirements.payTo", "is required");
  if (e.version == 2) {
    auto* resource = object_at(*payload, "resource");
    e.url = resource ? wire::find_string(*resource, "url") : nullptr;
    e.url_field = "paymentPayload.resource.url";
    if (!e.url) return fail(std::string{e.url_field}, "is required");
    e.mime_type = resource->if_contains("mimeType");
    if (auto* ext = object_at(*payload, "extensions")) e.bazaar = ext->if_contains("bazaar");
    if (auto* b = e.bazaar ? e.bazaar->if_object() : nullptr) {
      if (auto* info = object_at(*b, "info")) e.input = object_at(*info, "input");
      if (auto* rt = wire::find_string(*b, "routeTemplate"); rt && is_valid_route_template(*rt))
        e.route_template = std::string_view{*rt};  // an invalid template is ignored (bazaar-wire.md §3)
    }
    e.input_path = "paymentPayload.extensions.bazaar.info.input";
  } else {
    // v1: the resource and the discovery data live in the requirements.
    e.url = wire::find_string(*e.requirements, "resource");
    e.url_field = "paymentRequirements.resource";
    if (!e.url) return fail(std::string{e.url_field}, "is required");
    e.mime_type = e.requirements->if_contains("mimeType");
    if (auto* output_schema = object_at(*e.requirements, "outputSchema")) e.input = object_at(*output_schema, "input");
    e.input_path = "paymentRequirements.outputSchema.input";
  }
  return e;
}

// v1 requirements in the v2 shape: amount from maxAmountRequired, CAIP-2 network, no resource.
boost::json::object requirements_v2(const echo_view& e) {
  if (e.version == 2) return *e.requirements;
  boost::json::object out;
  for (auto key : {"scheme", "network", "asset", "payTo", "maxTimeoutSeconds", "extra"})
    if (auto* f = e.requirements->if_contains(key)) out[key] = *f;
  if (auto* amount = e.requirements->if_contains("maxAmountRequired")) out["amount"] = *amount;
  if (auto* net = wire::find_string(out, "network")) out["network"] = normalise_network(*net);
  return out;
}

}  // namespace

std::string normalise_network(std::string_view network) {
  for (auto& [v1, caip2] : v1_networks)
    if (network == v1) return std::string{caip2};
  return std::string{network};
}

payment_id payment_id_of(const boost::json::value& payment_payload) {
  auto digest = auth::sha256(wire::canonical_json(payment_payload));
  payment_id id;
  for (std::size_t i = 0; i < 8; ++i) {
    id.high = id.high << 8 | digest[i];
    id.low = id.low << 8 | digest[8 + i];
  }
  return id;
}

expected<settlement> derive_settlement(boost::json::value body) {
  // Copied into one arena here, and `body` freed on this thread when we return: the settlement's
  // tree is dropped by the catalog's thread, where freeing it node by node was about a third of
  // that thread's time (profile.md).
  return derive_settlement(wire::document_of(body));
}

expected<settlement> parse_settlement(std::string_view text) {
  auto body = wire::parse_strict_document(text, max_settlement_depth);
  if (!body) return body.error();
  return derive_settlement(std::move(*body));
}

expected<settlement> derive_settlement(std::shared_ptr<const boost::json::value> body) {
  auto echo = read_echo(*body);
  if (!echo) return echo.error();
  if (echo->url->size() > max_url_bytes)
    return refused(std::string{echo->url_field}, "may be at most " + std::to_string(max_url_bytes) + " bytes");
  auto resource = wire::canonical_resource_of(*echo->url, echo->route_template);
  if (!resource) return refused(std::string{echo->url_field}, resource.error().reason);
  std::string type, selector;
  if (auto e = identify(echo->input, echo->input_path, type, selector); !e) return e.error();
  settlement s;
  s.pay_to = echo->pay_to->c_str();
  s.identity = {std::move(type), std::move(*resource), std::move(selector)};
  s.key = s.identity.key();
  s.payment = payment_id_of(body->get_object().at("paymentPayload"));
  s.body = std::move(body);
  return s;
}

}  // namespace z402::rules

namespace z402::rules {

expected<boost::json::object> payment_only_fields(const settlement& s, const config::rail_terms& terms, bool allow_http) {
  auto fail = [](std::string field, std::string reason) { return refused(std::move(field), std::move(reason)); };
  auto echo = read_echo(*s.body);
  if (!echo) return echo.error();
  wire::url_parts url;
  if (auto e = check_resource(*echo->url, allow_http, url); !e) return fail(std::string{echo->url_field}, e.error().reason);
  auto requirements = requirements_v2(*echo);
  if (auto e = check_accepts_entry(requirements, "paymentRequirements", terms, s.pay_to); !e) return fail(e.error().field, e.error().reason);
  boost::json::object fields{{"resource", s.identity.resource},
                             {"type", s.identity.type},
                             {"x402Version", 2},
                             {"accepts", boost::json::array{std::move(requirements)}}};
  if (echo->mime_type) {
    if (auto e = check_mime_type(*echo->mime_type); !e)
      return fail(echo->version == 2 ? "paymentPayload.resource.mimeType" : "paymentRequirements.mimeType", e.error().reason);
    fields["mimeType"] = *echo->mime_type;
  }
  if (echo->bazaar) {
    bazaar_facts facts;
    if (auto e = check_bazaar_extension(*echo->bazaar, route_template_policy::ignore_invalid, facts); !e)
      return fail("paymentPayload." + e.error().field, e.error().reason);
    if (facts.input_type != s.identity.type)
      return fail("paymentPayload.extensions.bazaar.info.input.type", "must be " + s.identity.type);
    fields["extensions"] = boost::json::object{{"bazaar", *echo->bazaar}};
  } else if (s.identity.type == "mcp") {
    return fail("paymentPayload.extensions.bazaar", "is required to list an MCP tool");
  }
  if (boost::json::serialize(fields).size() > max_item_bytes)
    return fail("paymentPayload", "the listed item would serialise to more than " + std::to_string(max_item_bytes) + " bytes");
  return fields;
}

}  // namespace z402::rules
