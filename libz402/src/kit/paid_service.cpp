#include "z402/kit/paid_service.hpp"

#include "z402/core/wall_clock.hpp"
#include "z402/http/access_log.hpp"
#include "z402/kit/payment_required.hpp"
#include "z402/wire/base64.hpp"

#include <boost/json.hpp>

namespace z402::kit {
namespace {

namespace json = boost::json;
using http::bhttp::field;

/// 402 with PAYMENT-REQUIRED (base64 of the PaymentRequired) and a short body for people.
http::response payment_required_response(const json::object& required, std::string_view why) {
  auto& offer = required.at("accepts").as_array().at(0).as_object();
  json::object body{{"error", "payment_required"},
                    {"message", why},
                    {"price", json::object{{"amount", offer.at("amount")},
                                           {"asset", offer.at("asset")},
                                           {"unit", required.at("extensions").at("z402").at("unit")}}},
                    {"payTo", offer.at("payTo")}};
  auto res = http::json_response(402, json::serialize(body));
  res.set("PAYMENT-REQUIRED", wire::base64_encode(json::serialize(required)));
  return res;
}

}  // namespace

paid_service::paid_service(service_options options)
    : options_(std::move(options)),
      declaration_(kit::declaration(options_.identity, options_.routes)),
      manifest_(kit::manifest(options_.identity, options_.routes)) {
  if (!options_.now_ms) {
    auto clock = std::make_shared<system_wall_clock>();
    options_.now_ms = [clock] { return clock->now_ms(); };
  }
}

std::int64_t paid_service::now() const { return options_.now_ms(); }

bool paid_service::ready() const { return !paused_ && options_.readiness(); }

std::uint32_t paid_service::calls_today() const { return delivered_.read(now()); }

paid_service::match paid_service::find(std::string_view method, std::string_view path) const {
  match m;
  for (auto& r : options_.routes) {
    auto params = match_pattern(r.pattern, path);
    if (!params) continue;
    m.path_known = true;
    if (r.method == method) {
      m.route = &r;
      m.params = std::move(*params);
      return m;
    }
  }
  return m;
}

http::header_verdict paid_service::on_header(const http::request_header& req) {
  auto path = http::path_of({req.target().data(), req.target().size()});
  std::string_view method{req.method_string().data(), req.method_string().size()};
  if (path == "/health" || path == "/.well-known/x402" || path == "/.well-known/x402.json") {
    if (req.method() == http::bhttp::verb::get) return {0, std::nullopt, {}, {}};
    auto res = http::error_response(405, "method_not_allowed", "this endpoint answers GET");
    res.set(field::allow, "GET");
    return {0, std::move(res), {}, {}};
  }
  auto m = find(method, path);
  if (m.route) return {options_.body_limit, std::nullopt, {}, {}};
  if (m.path_known) return {0, http::error_response(405, "method_not_allowed", "this route answers another method"), {}, {}};
  return {0, http::error_response(404, "not_found", "no such route"), {}, {}};
}

std::optional<http::response> paid_service::on_request(http::request& req, std::any&, const http::responder&) {
  std::string_view target{req.target().data(), req.target().size()};
  auto path = http::path_of(target);
  if (path == "/health") return health();
  if (path == "/.well-known/x402" || path == "/.well-known/x402.json") {
    auto res = http::json_response(200, manifest_);
    res.set(field::cache_control, "public, max-age=300");
    return res;
  }
  std::string_view method{req.method_string().data(), req.method_string().size()};
  auto m = find(method, path);
  return paid_call(req, *m.route, std::move(m.params), path);
}

http::response paid_service::paid_call(const http::request& req, const paid_route& route, json::object params,
                                       std::string_view path) {
  auto required = payment_required(options_.identity, route, path);
  auto header = req.find("PAYMENT-SIGNATURE");
  if (header == req.end()) {
    required["error"] = "PAYMENT-SIGNATURE header is required";
    return payment_required_response(required, "this route is paid: pay with the PAYMENT-SIGNATURE header");
  }
  auto verdict = options_.verifier->verify({header->value().data(), header->value().size()}, required);
  if (!verdict.paid) {
    required["error"] = verdict.reason;
    return payment_required_response(required, "the payment was refused: " + verdict.reason);
  }
  std::string_view target{req.target().data(), req.target().size()};
  auto q = target.find('?');
  route_call call{req, std::move(params), q == std::string_view::npos ? std::string_view{} : target.substr(q + 1)};
  auto answer = route.answer(call);
  auto res = http::json_response(answer.status, json::serialize(answer.body));
  if (answer.status < 200 || answer.status >= 300) return res;
  delivered_.add(now());
  auto& offer = verdict.requirements;
  json::object settled{{"success", true},
                       {"transaction", verdict.payload.at("payload").at("nonce")},
                       {"network", offer.at("network")}};
  res.set("PAYMENT-RESPONSE", wire::base64_encode(json::serialize(settled)));
  if (options_.on_delivered)
    options_.on_delivered(json::object{{"x402Version", 2},
                                       {"paymentPayload", std::move(verdict.payload)},
                                       {"paymentRequirements", std::move(offer)}});
  return res;
}

http::response paid_service::health() const {
  bool is_ready = ready();
  json::object body{{"status", is_ready ? "ready" : "unready"}, {"callsToday", calls_today()}};
  return http::json_response(is_ready ? 200 : 503, json::serialize(body));
}

}  // namespace z402::kit
