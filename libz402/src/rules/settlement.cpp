#include "z402/rules/settlement.hpp"

#include "z402/core/crypto.hpp"

#include "rules/bazaar_extension.hpp"
#include "rules/item_fields.hpp"
#include "rules/route_template.hpp"
#include "z402/rules/text.hpp"
#include "wire/flat_json.hpp"
#include "z402/wire/json.hpp"
#include "wire/url.hpp"

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

using wire::flat_json;

// The item a payment names: HTTP by method (GET by default), MCP by toolName.
// Views into `doc`'s text, or constants.
expected<void> identify(const flat_json& doc, flat_json::index input, std::string_view input_path, std::string_view& type,
                        std::string_view& selector) {
  type = "http";
  selector = "GET";
  if (input == flat_json::absent) return {};
  if (doc.string_at(doc.member(input, "type")) == "mcp") {
    auto tool = doc.string_at(doc.member(input, "toolName"));
    if (!tool || !is_printable_ascii(*tool, 128))
      return refused(std::string{input_path} + ".toolName", "must name the MCP tool: 1-128 printable ASCII characters");
    type = "mcp";
    selector = *tool;
    return {};
  }
  if (auto m = doc.member(input, "method"); m != flat_json::absent) {
    auto s = doc.string_at(m);
    static constexpr std::string_view methods[] = {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"};
    if (!s || std::find(std::begin(methods), std::end(methods), *s) == std::end(methods))
      return refused(std::string{input_path} + ".method", "must be one of GET, POST, PUT, PATCH, DELETE, HEAD");
    selector = *s;
  }
  return {};
}

// Where the payer's echo and the server's requirements sit in a v1 or v2 body: positions in
// the document, `absent` where a value is not there.
struct echo_view {
  int version = 2;
  flat_json::index requirements = flat_json::absent;  // an object
  flat_json::index payload = flat_json::absent;       // an object
  std::string_view pay_to;
  std::string_view url;
  std::string_view url_field;  // field names: literals, made into strings only for a refusal
  flat_json::index mime_type = flat_json::absent;
  flat_json::index bazaar = flat_json::absent;  // v2 only
  flat_json::index input = flat_json::absent;   // an object: bazaar info.input (v2) or outputSchema.input (v1)
  std::string_view input_path;
  std::optional<std::string_view> route_template;  // only a valid one
};

flat_json::index object_at(const flat_json& doc, flat_json::index at, std::string_view key) {
  auto v = doc.member(at, key);
  return doc.is_object(v) ? v : flat_json::absent;
}

expected<echo_view> read_echo(const flat_json& doc) {
  auto fail = [](std::string field, std::string reason) { return refused(std::move(field), std::move(reason)); };
  echo_view e;
  if (!doc.is_object(flat_json::root)) return fail("", "the body must be a JSON object");
  auto version = doc.int64_at(doc.member(flat_json::root, "x402Version"));
  e.version = version == 1 || version == 2 ? static_cast<int>(*version) : 0;
  if (e.version == 0) return fail("x402Version", "must be 1 or 2");
  e.requirements = object_at(doc, flat_json::root, "paymentRequirements");
  if (e.requirements == flat_json::absent) return fail("paymentRequirements", "is required and must be an object");
  e.payload = object_at(doc, flat_json::root, "paymentPayload");
  if (e.payload == flat_json::absent) return fail("paymentPayload", "is required and must be an object");
  auto pay_to = doc.string_at(doc.member(e.requirements, "payTo"));
  if (!pay_to || pay_to->empty()) return fail("paymentRequirements.payTo", "is required");
  e.pay_to = *pay_to;
  flat_json::index url;
  if (e.version == 2) {
    auto resource = object_at(doc, e.payload, "resource");
    url = doc.member(resource, "url");
    e.url_field = "paymentPayload.resource.url";
    e.mime_type = doc.member(resource, "mimeType");
    e.bazaar = doc.member(object_at(doc, e.payload, "extensions"), "bazaar");
    e.input = object_at(doc, object_at(doc, e.bazaar, "info"), "input");
    if (auto rt = doc.string_at(doc.member(e.bazaar, "routeTemplate")); rt && is_valid_route_template(*rt))
      e.route_template = *rt;  // an invalid template is ignored (docs/wire.md §3)
    e.input_path = "paymentPayload.extensions.bazaar.info.input";
  } else {
    // v1: the resource and the discovery data live in the requirements.
    url = doc.member(e.requirements, "resource");
    e.url_field = "paymentRequirements.resource";
    e.mime_type = doc.member(e.requirements, "mimeType");
    e.input = object_at(doc, object_at(doc, e.requirements, "outputSchema"), "input");
    e.input_path = "paymentRequirements.outputSchema.input";
  }
  auto url_text = doc.string_at(url);
  if (!url_text) return fail(std::string{e.url_field}, "is required");
  e.url = *url_text;
  return e;
}

// v1 requirements in the v2 shape: amount from maxAmountRequired, CAIP-2 network, no resource.
boost::json::object requirements_v2(const flat_json& doc, const echo_view& e) {
  if (e.version == 2) return doc.to_value(e.requirements).get_object();
  boost::json::object out;
  for (auto key : {"scheme", "network", "asset", "payTo", "maxTimeoutSeconds", "extra"})
    if (auto f = doc.member(e.requirements, key); f != flat_json::absent) out[key] = doc.to_value(f);
  if (auto amount = doc.member(e.requirements, "maxAmountRequired"); amount != flat_json::absent) out["amount"] = doc.to_value(amount);
  if (auto* net = wire::find_string(out, "network")) out["network"] = normalise_network(*net);
  return out;
}

// The body of a settlement, read again (it was read strictly when it arrived).
expected<void> read_body(flat_json& doc, const settlement& s) {
  if (s.body().empty()) return refused("", "the body must be a JSON object");
  return doc.read(s.body(), max_settlement_depth);
}

}  // namespace

std::string normalise_network(std::string_view network) {
  for (auto& [v1, caip2] : v1_networks)
    if (network == v1) return std::string{caip2};
  return std::string{network};
}

payment_id payment_id_of(const wire::flat_json& doc, wire::flat_json::index payment_payload) {
  // One buffer a thread for the canonical text: it is hashed and forgotten on every settle.
  thread_local std::string canonical;
  canonical.clear();
  doc.write_canonical(payment_payload, canonical);
  auto digest = crypto::sha256(canonical);
  payment_id id;
  for (std::size_t i = 0; i < 8; ++i) {
    id.high = id.high << 8 | digest[i];
    id.low = id.low << 8 | digest[8 + i];
  }
  return id;
}

expected<settlement> derive_settlement(const boost::json::value& body) {
  return parse_settlement(boost::json::serialize(body));
}

expected<settlement> parse_settlement(std::string_view text) {
  // One reader a thread, reused: its arrays keep their capacity from one body to the next.
  thread_local flat_json doc;
  if (auto read = doc.read(text, max_settlement_depth); !read) return read.error();
  auto echo = read_echo(doc);
  if (!echo) return echo.error();
  if (echo->url.size() > max_url_bytes)
    return refused(std::string{echo->url_field}, "may be at most " + std::to_string(max_url_bytes) + " bytes");
  // One buffer a thread for the canonical resource: the settlement copies it into its own text.
  thread_local std::string resource;
  resource.clear();
  if (auto e = wire::append_canonical_resource(resource, echo->url, echo->route_template); !e)
    return refused(std::string{echo->url_field}, e.error().reason);
  std::string_view type, selector;
  if (auto e = identify(doc, echo->input, echo->input_path, type, selector); !e) return e.error();
  return settlement{type, resource, selector, echo->pay_to, text, payment_id_of(doc, echo->payload)};
}

settlement::settlement(std::string_view type, std::string_view resource, std::string_view selector,
                       std::string_view pay_to, std::string_view body, payment_id payment)
    : key_size_(item_identity::key_size(type, resource, selector)),
      pay_to_size_(pay_to.size()),
      body_size_(body.size()),
      payment_(payment) {
  auto text = std::make_shared_for_overwrite<char[]>(key_size_ + pay_to_size_ + body_size_);
  auto* end = item_identity::write_key(text.get(), type, resource, selector);
  end = std::copy(pay_to.begin(), pay_to.end(), end);
  std::copy(body.begin(), body.end(), end);
  text_ = std::move(text);
}

item_identity settlement::identity() const {
  // The unit separator appears in none of the parts (item_identity::key).
  auto k = key();
  auto first = k.find('\x1f');
  auto second = k.find('\x1f', first + 1);
  return {std::string{k.substr(0, first)}, std::string{k.substr(first + 1, second - first - 1)},
          std::string{k.substr(second + 1)}};
}

}  // namespace z402::rules

namespace z402::rules {

expected<boost::json::object> payment_only_fields(const settlement& s, const config::rail_terms& terms, bool allow_http) {
  auto fail = [](std::string field, std::string reason) { return refused(std::move(field), std::move(reason)); };
  auto identity = s.identity();
  flat_json doc;
  if (auto read = read_body(doc, s); !read) return read.error();
  auto echo = read_echo(doc);
  if (!echo) return echo.error();
  wire::url_parts url;
  if (auto e = check_resource(boost::json::value(echo->url), allow_http, url); !e) return fail(std::string{echo->url_field}, e.error().reason);
  auto requirements = requirements_v2(doc, *echo);
  if (auto e = check_accepts_entry(requirements, "paymentRequirements", terms, s.pay_to()); !e) return fail(e.error().field, e.error().reason);
  boost::json::object fields{{"resource", identity.resource},
                             {"type", identity.type},
                             {"x402Version", 2},
                             {"accepts", boost::json::array{std::move(requirements)}}};
  if (echo->mime_type != flat_json::absent) {
    auto mime_type = doc.to_value(echo->mime_type);
    if (auto e = check_mime_type(mime_type); !e)
      return fail(echo->version == 2 ? "paymentPayload.resource.mimeType" : "paymentRequirements.mimeType", e.error().reason);
    fields["mimeType"] = std::move(mime_type);
  }
  if (echo->bazaar != flat_json::absent) {
    auto bazaar = doc.to_value(echo->bazaar);
    bazaar_facts facts;
    if (auto e = check_bazaar_extension(bazaar, route_template_policy::ignore_invalid, facts); !e)
      return fail("paymentPayload." + e.error().field, e.error().reason);
    if (facts.input_type != identity.type)
      return fail("paymentPayload.extensions.bazaar.info.input.type", "must be " + identity.type);
    fields["extensions"] = boost::json::object{{"bazaar", std::move(bazaar)}};
  } else if (identity.type == "mcp") {
    return fail("paymentPayload.extensions.bazaar", "is required to list an MCP tool");
  }
  if (boost::json::serialize(fields).size() > max_item_bytes)
    return fail("paymentPayload", "the listed item would serialise to more than " + std::to_string(max_item_bytes) + " bytes");
  return fields;
}

}  // namespace z402::rules
