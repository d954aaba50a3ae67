#define CAF_SUITE kit
#include "test.hpp"

#include "z402/agent/origin_binding.hpp"
#include "z402/kit/bazaar_builder.hpp"
#include "z402/kit/dev_verifier.hpp"
#include "z402/kit/paid_service.hpp"
#include "z402/kit/payment_required.hpp"
#include "z402/rules/declaration.hpp"
#include "z402/wire/base64.hpp"
#include "z402/wire/payment_required.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

using namespace z402;
using boost::json::object;
using boost::json::value;

namespace {

/// JSON with every object's keys in sorted order: "byte-for-byte after key sorting".
std::string sorted(const value& v) {
  if (v.is_object()) {
    std::vector<std::string_view> keys;
    for (auto& [k, _] : v.get_object()) keys.push_back(k);
    std::sort(keys.begin(), keys.end());
    std::string out = "{";
    for (auto k : keys) {
      if (out.size() > 1) out += ',';
      out += boost::json::serialize(value{k}) + ':' + sorted(v.get_object().at(k));
    }
    return out + '}';
  }
  if (v.is_array()) {
    std::string out = "[";
    for (auto& e : v.get_array()) {
      if (out.size() > 1) out += ',';
      out += sorted(e);
    }
    return out + ']';
  }
  return boost::json::serialize(v);
}

template <class T>
std::optional<T> field(const object& o, std::string_view key) {
  auto v = o.if_contains(key);
  if (!v) return std::nullopt;
  if constexpr (std::is_same_v<T, std::string>) return std::string{v->as_string()};
  else if constexpr (std::is_same_v<T, object>) return v->as_object();
  else return *v;
}

std::optional<kit::output_spec> output_of(const object& config) {
  auto out = field<object>(config, "output");
  if (!out) return std::nullopt;
  return kit::output_spec{out->contains("example") ? out->at("example") : value{}, field<object>(*out, "schema")};
}

/// The official builder's config object, as this kit's typed routes.
kit::discovery_spec spec_of(const object& c) {
  if (c.contains("toolName"))
    return kit::mcp_tool{*field<std::string>(c, "toolName"), field<std::string>(c, "description"),
                         field<std::string>(c, "transport"), *field<object>(c, "inputSchema"), field<value>(c, "example"),
                         output_of(c)};
  if (c.contains("bodyType")) {
    kit::body_route r;
    r.method = field<std::string>(c, "method");
    r.body_type = *field<std::string>(c, "bodyType");
    if (auto v = field<value>(c, "input")) r.body = *v;
    if (auto v = field<value>(c, "inputSchema")) r.body_schema = *v;
    r.path_params = field<object>(c, "pathParams");
    r.path_params_schema = field<value>(c, "pathParamsSchema");
    r.output = output_of(c);
    return r;
  }
  kit::query_route r;
  r.method = field<std::string>(c, "method");
  if (auto v = field<object>(c, "input")) r.params = *v;
  if (auto v = field<value>(c, "inputSchema")) r.params_schema = *v;
  r.path_params = field<object>(c, "pathParams");
  r.path_params_schema = field<value>(c, "pathParamsSchema");
  r.output = output_of(c);
  return r;
}

value golden() {
  std::ifstream in{Z402_KIT_GOLDEN};
  std::stringstream text;
  text << in.rdbuf();
  return boost::json::parse(text.str());
}

}  // namespace

CAF_TEST(the builder equals the official package on every golden vector) {
  auto vectors = golden().at("vectors").as_array();
  CAF_REQUIRE_GREATER_OR_EQUAL(vectors.size(), 6u);
  for (auto& v : vectors) {
    auto& vec = v.as_object();
    auto built = kit::declare_discovery_extension(spec_of(vec.at("config").as_object()));
    if (auto& req = vec.at("request"); req.is_object()) {
      auto& r = req.as_object();
      auto pattern = field<std::string>(r, "routePattern");
      auto method = *field<std::string>(r, "method");
      auto path = *field<std::string>(r, "path");
      built["bazaar"] = kit::enrich_for_request(built.at("bazaar").as_object(), method,
                                                pattern ? std::optional<std::string_view>{*pattern} : std::nullopt, path);
    }
    auto expected = sorted(vec.at("expected"));
    auto actual = sorted(built);
    CAF_MESSAGE(vec.at("name").as_string().c_str());
    CAF_CHECK_EQUAL(actual, expected);
  }
}

CAF_TEST(declared schemas are self contained) {
  // No $ref in what the builder emits for a route with nested schemas: refs would dangle
  // once the extension leaves the seller (adr-0003).
  kit::body_route r;
  r.body_schema = test::json(R"({"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}}}}})");
  auto text = boost::json::serialize(kit::declare_discovery_extension(r));
  CAF_CHECK_EQUAL(text.find("$ref"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// The paid service: 402s, declarations, manifest, payments, health.

namespace {

using namespace std::string_literals;

kit::service_identity identity() {
  kit::service_identity id;
  id.service_name = "Kit test";
  id.tags = {"test"};
  id.public_url = "https://svc.example.com";
  id.pay_to = "uregtest1kit";
  id.terms = config::default_rail_terms();
  return id;
}

std::vector<kit::paid_route> routes() {
  kit::query_route get_shape;
  get_shape.params = object{{"q", "x"}};
  kit::body_route post_shape;
  post_shape.body = object{{"text", "hi"}};
  kit::query_route item_shape;
  auto echo = [](const kit::route_call& call) {
    return kit::route_answer{200, object{{"params", call.path_params}, {"query", call.query}}};
  };
  auto refuse = [](const kit::route_call&) { return kit::route_answer{422, object{{"error", "nope"}}}; };
  return {{"GET", "/v1/search", "", "1000", "call", "Searches things.", "application/json", get_shape, echo},
          {"POST", "/v1/count", "", "500", "text", "Counts words.", "application/json", post_shape, refuse},
          {"GET", "/v1/items/:id", "/v1/items/7", "200", "item", "One item by id.", "application/json", item_shape, echo}};
}

object decode_required(const http::response& res) {
  auto header = res.find("PAYMENT-REQUIRED");
  CAF_REQUIRE(header != res.end());
  auto text = wire::base64_decode({header->value().data(), header->value().size()});
  CAF_REQUIRE(text.has_value());
  return boost::json::parse(*text).as_object();
}

http::request make_request(http::bhttp::verb method, std::string target, std::string payment = {}) {
  http::request req{method, target, 11};
  if (!payment.empty()) req.set("PAYMENT-SIGNATURE", payment);
  return req;
}

struct service_fixture {
  std::int64_t now = 1'767'225'599'000;  // 2025-12-31T23:59:59.000Z
  bool backend_up = true;
  std::vector<object> delivered;
  std::shared_ptr<kit::dev_verifier> verifier = std::make_shared<kit::dev_verifier>("test-secret", 4);
  kit::paid_service service{[this] {
    kit::service_options o;
    o.identity = identity();
    o.routes = routes();
    o.verifier = verifier;
    o.readiness = [this] { return backend_up; };
    o.on_delivered = [this](object e) { delivered.push_back(std::move(e)); };
    o.now_ms = [this] { return now; };
    return o;
  }()};

  http::response call(http::bhttp::verb method, std::string target, std::string payment = {}) {
    auto req = make_request(method, target, payment);
    auto verdict = service.on_header(req.base());
    if (verdict.early) return *verdict.early;
    auto res = service.on_request(req, verdict.context, http::responder{nullptr, 0});
    CAF_REQUIRE(res.has_value());
    return *res;
  }

  /// Pays `target` as the pay tool does: the 402 first, then the signed payment.
  std::string payment_for(http::bhttp::verb method, std::string target, std::string nonce) {
    auto required = decode_required(call(method, target));
    return kit::dev_payment_header("test-secret", required, nonce);
  }
};

}  // namespace

CAF_TEST(route patterns match literal and parameter segments only) {
  auto m = kit::match_pattern("/v1/items/:id", "/v1/items/42");
  CAF_REQUIRE(m.has_value());
  auto id = m->at("id").as_string();
  CAF_CHECK_EQUAL(id, "42");
  CAF_CHECK(!kit::match_pattern("/v1/items/:id", "/v1/items/").has_value());
  CAF_CHECK(!kit::match_pattern("/v1/items/:id", "/v1/items/4/2").has_value());
  CAF_CHECK(!kit::match_pattern("/v1/items", "/v1/items/4").has_value());
  CAF_CHECK(kit::match_pattern("/v1/items", "/v1/items").has_value());
}

CAF_TEST(an unpaid call gets the x402 v2 402 with the terms the catalog lists) {
  service_fixture f;
  auto res = f.call(http::bhttp::verb::get, "/v1/items/7?x=1");
  CAF_CHECK_EQUAL(res.result_int(), 402u);
  auto required = decode_required(res);
  auto version = required.at("x402Version").as_int64();
  CAF_CHECK_EQUAL(version, 2);
  auto url = required.at("resource").at("url").as_string();
  CAF_CHECK_EQUAL(url, "https://svc.example.com/v1/items/7");
  auto& offer = required.at("accepts").at(0).as_object();
  auto expected_offer = config::accepts_entry(config::default_rail_terms(), "uregtest1kit", "200", 60);
  CAF_CHECK(offer == expected_offer);
  auto& bazaar = required.at("extensions").at("bazaar").as_object();
  auto templ = bazaar.at("routeTemplate").as_string();
  CAF_CHECK_EQUAL(templ, "/v1/items/:id");
  auto method = bazaar.at("info").at("input").at("method").as_string();
  CAF_CHECK_EQUAL(method, "GET");
  auto unit = required.at("extensions").at("z402").at("unit").as_string();
  CAF_CHECK_EQUAL(unit, "item");
  auto body = boost::json::parse(res.body()).as_object();
  auto code = body.at("error").as_string();
  CAF_CHECK_EQUAL(code, "payment_required");
}

CAF_TEST(the declaration built from the 402s passes every catalog rule) {
  auto id = identity();
  auto decl = kit::declaration(id, routes());
  auto result = rules::validate_declaration(decl, rules::declaration_context{id.terms, id.pay_to, false, 128});
  CAF_REQUIRE(result.has_value());
  CAF_REQUIRE_EQUAL(result->size(), 3u);
  CAF_CHECK_EQUAL((*result)[0].identity.resource, "https://svc.example.com/v1/search");
  CAF_CHECK_EQUAL((*result)[1].identity.selector, "POST");
  CAF_CHECK_EQUAL((*result)[2].identity.resource, "https://svc.example.com/v1/items/:id");
  // The listed accepts and extensions are the 402's, byte for byte.
  auto required = kit::payment_required(id, routes()[2], "/v1/items/7");
  auto& item = decl.at("items").at(2).as_object();
  CAF_CHECK(item.at("accepts") == required.at("accepts"));
  CAF_CHECK(item.at("extensions") == required.at("extensions"));
}

CAF_TEST(the manifest is byte stable and names every route with its price) {
  auto a = kit::manifest(identity(), routes());
  auto b = kit::manifest(identity(), routes());
  CAF_CHECK_EQUAL(a, b);
  auto doc = boost::json::parse(a).as_object();
  auto& list = doc.at("routes").as_array();
  CAF_REQUIRE_EQUAL(list.size(), 3u);
  auto amount = list.at(1).at("price").at("amount").as_string();
  CAF_CHECK_EQUAL(amount, "500");
  auto pay_to = doc.at("payment").at("payTo").as_string();
  CAF_CHECK_EQUAL(pay_to, "uregtest1kit");
  // Each route names the payTo its 402 asks, as the agent reads a manifest (agent/origin_binding.hpp):
  // every route's declared resource is found in it, with the kit's payTo.
  for (auto& r : routes()) {
    auto required = kit::payment_required(identity(), r, kit::example_path(r));
    auto named = agent::manifest_pay_tos(doc, r.method, kit::declared_item(required).at("resource").as_string());
    CAF_REQUIRE(named.has_value());
    CAF_CHECK_EQUAL(*named, std::vector<std::string>{"uregtest1kit"});
    CAF_CHECK_EQUAL(wire::pay_tos_of(required), *named);
  }
  service_fixture f;
  auto served = f.call(http::bhttp::verb::get, "/.well-known/x402");
  CAF_CHECK_EQUAL(served.body(), a);
  auto served_json = f.call(http::bhttp::verb::get, "/.well-known/x402.json");
  CAF_CHECK_EQUAL(served_json.body(), a);
}

CAF_TEST(a paid call is served once and reported and a replay gets 402) {
  service_fixture f;
  auto payment = f.payment_for(http::bhttp::verb::get, "/v1/items/7", "nonce-0000000000001");
  auto res = f.call(http::bhttp::verb::get, "/v1/items/7?full=1", payment);
  CAF_CHECK_EQUAL(res.result_int(), 200u);
  auto body = boost::json::parse(res.body()).as_object();
  auto id = body.at("params").at("id").as_string();
  CAF_CHECK_EQUAL(id, "7");
  CAF_CHECK(res.find("PAYMENT-RESPONSE") != res.end());
  CAF_CHECK_EQUAL(f.service.calls_today(), 1u);
  CAF_REQUIRE_EQUAL(f.delivered.size(), 1u);
  auto& event = f.delivered[0];
  auto template_echo = event.at("paymentPayload").at("extensions").at("bazaar").at("routeTemplate").as_string();
  CAF_CHECK_EQUAL(template_echo, "/v1/items/:id");
  CAF_CHECK(event.at("paymentRequirements") == decode_required(f.call(http::bhttp::verb::get, "/v1/items/7")).at("accepts").at(0));
  auto replay = f.call(http::bhttp::verb::get, "/v1/items/7", payment);
  CAF_CHECK_EQUAL(replay.result_int(), 402u);
  auto reason = decode_required(replay).at("error").as_string();
  CAF_CHECK_EQUAL(reason, "this payment was already used");
  CAF_CHECK_EQUAL(f.service.calls_today(), 1u);
  CAF_CHECK_EQUAL(f.delivered.size(), 1u);
}

CAF_TEST(payments that do not match the route are refused and change nothing) {
  service_fixture f;
  auto required = decode_required(f.call(http::bhttp::verb::get, "/v1/items/7"));
  auto cheaper = required;
  cheaper["accepts"].as_array()[0].as_object()["amount"] = "1";
  auto other_url = required;
  other_url["resource"].as_object()["url"] = "https://svc.example.com/v1/items/8";
  struct bad { std::string payment; std::string reason; };
  std::vector<bad> cases{
      {"not base64!", "PAYMENT-SIGNATURE is not base64"},
      {wire::base64_encode("[1]"), "PAYMENT-SIGNATURE is not a JSON PaymentPayload"},
      {kit::dev_payment_header("test-secret", cheaper, "nonce-0000000000002"),
       "accepted does not match the terms, price or payTo this route asks for"},
      {kit::dev_payment_header("test-secret", other_url, "nonce-0000000000003"), "resource.url is not this route's URL"},
      {kit::dev_payment_header("wrong-secret", required, "nonce-0000000000004"), "payload.signature does not verify"},
      {kit::dev_payment_header("test-secret", required, "short"), "payload.nonce must be 16-128 characters of [A-Za-z0-9_-]"},
      {kit::dev_payment_header("test-secret", required, "nonce with spaces!!"), "payload.nonce must be 16-128 characters of [A-Za-z0-9_-]"},
  };
  for (auto& c : cases) {
    auto res = f.call(http::bhttp::verb::get, "/v1/items/7", c.payment);
    CAF_CHECK_EQUAL(res.result_int(), 402u);
    auto reason = decode_required(res).at("error").as_string();
    CAF_CHECK_EQUAL(reason, c.reason);
  }
  // The refused nonces were not consumed: the honest payment with nonce 4 still pays.
  auto honest = kit::dev_payment_header("test-secret", required, "nonce-0000000000004");
  auto paid = f.call(http::bhttp::verb::get, "/v1/items/7", honest);
  CAF_CHECK_EQUAL(paid.result_int(), 200u);
  CAF_CHECK_EQUAL(f.service.calls_today(), 1u);
}

CAF_TEST(a call the route does not deliver is not counted or reported) {
  service_fixture f;
  auto payment = f.payment_for(http::bhttp::verb::post, "/v1/count", "nonce-0000000000005");
  auto res = f.call(http::bhttp::verb::post, "/v1/count", payment);
  CAF_CHECK_EQUAL(res.result_int(), 422u);
  CAF_CHECK_EQUAL(f.service.calls_today(), 0u);
  CAF_CHECK(f.delivered.empty());
}

CAF_TEST(the development verifier refuses past its nonce bound) {
  service_fixture f;  // room for 4 nonces
  for (int i = 0; i < 4; ++i) {
    auto res = f.call(http::bhttp::verb::get, "/v1/search", f.payment_for(http::bhttp::verb::get, "/v1/search", "nonce-00000000000" + std::to_string(10 + i)));
    CAF_CHECK_EQUAL(res.result_int(), 200u);
  }
  auto fifth = f.call(http::bhttp::verb::get, "/v1/search", f.payment_for(http::bhttp::verb::get, "/v1/search", "nonce-0000000000099"));
  CAF_CHECK_EQUAL(fifth.result_int(), 402u);
  CAF_CHECK_EQUAL(f.service.calls_today(), 4u);
}

CAF_TEST(health says ready with callsToday and 503 when the service is not ready) {
  service_fixture f;
  f.call(http::bhttp::verb::get, "/v1/search", f.payment_for(http::bhttp::verb::get, "/v1/search", "nonce-0000000000020"));
  auto ready = f.call(http::bhttp::verb::get, "/health");
  CAF_CHECK_EQUAL(ready.result_int(), 200u);
  CAF_CHECK_EQUAL(ready.body(), R"({"status":"ready","callsToday":1})");
  f.backend_up = false;
  auto down = f.call(http::bhttp::verb::get, "/health");
  CAF_CHECK_EQUAL(down.result_int(), 503u);
  CAF_CHECK_EQUAL(down.body(), R"({"status":"unready","callsToday":1})");
  f.backend_up = true;
  f.service.pause(true);
  CAF_CHECK(!f.service.ready());
  f.service.pause(false);
  CAF_CHECK(f.service.ready());
  // 00:00:00.000 UTC: the count belongs to the day before.
  f.now += 999;
  CAF_CHECK_EQUAL(f.service.calls_today(), 1u);
  f.now += 1;
  CAF_CHECK_EQUAL(f.service.calls_today(), 0u);
}

CAF_TEST(unknown paths get 404 and known paths with another method 405) {
  service_fixture f;
  CAF_CHECK_EQUAL(f.call(http::bhttp::verb::get, "/nope").result_int(), 404u);
  CAF_CHECK_EQUAL(f.call(http::bhttp::verb::get, "/v1/count").result_int(), 405u);
  CAF_CHECK_EQUAL(f.call(http::bhttp::verb::post, "/health").result_int(), 405u);
}
