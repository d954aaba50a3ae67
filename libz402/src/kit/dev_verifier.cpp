#include "z402/kit/dev_verifier.hpp"

#include "z402/core/crypto.hpp"
#include "z402/wire/base64.hpp"
#include "z402/wire/json.hpp"

#include <boost/json.hpp>

namespace z402::kit {
namespace {

namespace json = boost::json;

constexpr std::size_t max_payload_depth = 48;

std::string signature(std::string_view secret, std::string_view url, std::string_view nonce, const json::value& accepted) {
  auto message = "z402-dev-payment\n" + std::string{url} + "\n" + std::string{nonce} + "\n" + json::serialize(accepted);
  return crypto::hex(crypto::hmac_sha256(secret, message));
}

bool valid_nonce(std::string_view nonce) {
  if (nonce.size() < 16 || nonce.size() > 128) return false;
  for (unsigned char c : nonce)
    if (!std::isalnum(c) && c != '-' && c != '_') return false;
  return true;
}

payment_verdict refuse(std::string reason) { return {false, std::move(reason), {}, {}}; }

}  // namespace

std::string dev_payment_header(std::string_view secret, const json::object& required, std::string_view nonce) {
  auto& accepted = required.at("accepts").as_array().at(0);
  auto& url = required.at("resource").at("url").as_string();
  json::object payload{{"x402Version", 2},
                       {"resource", required.at("resource")},
                       {"accepted", accepted},
                       {"payload", json::object{{"nonce", nonce}, {"signature", signature(secret, url, nonce, accepted)}}}};
  if (auto ext = required.if_contains("extensions")) payload["extensions"] = *ext;
  return wire::base64_encode(json::serialize(payload));
}

payment_verdict dev_verifier::verify(std::string_view header, const json::object& required) {
  auto text = wire::base64_decode(header);
  if (!text) return refuse("PAYMENT-SIGNATURE is not base64");
  auto parsed = wire::parse_strict(*text, max_payload_depth);
  if (!parsed || !parsed->is_object()) return refuse("PAYMENT-SIGNATURE is not a JSON PaymentPayload");
  auto& payload = parsed->get_object();
  auto version = payload.if_contains("x402Version");
  if (!version || !version->is_int64() || version->get_int64() != 2) return refuse("x402Version must be 2");
  auto accepted = payload.if_contains("accepted");
  if (!accepted || !accepted->is_object()) return refuse("accepted is missing");
  const json::object* matched = nullptr;
  for (auto& offer : required.at("accepts").as_array())
    if (offer == *accepted) matched = &offer.as_object();
  if (!matched) return refuse("accepted does not match the terms, price or payTo this route asks for");
  auto resource = payload.if_contains("resource");
  auto url = resource && resource->is_object() ? wire::find_string(resource->get_object(), "url") : nullptr;
  if (!url || *url != required.at("resource").at("url").as_string()) return refuse("resource.url is not this route's URL");
  auto inner = payload.if_contains("payload");
  auto nonce = inner && inner->is_object() ? wire::find_string(inner->get_object(), "nonce") : nullptr;
  auto sig = inner && inner->is_object() ? wire::find_string(inner->get_object(), "signature") : nullptr;
  if (!nonce || !valid_nonce(*nonce)) return refuse("payload.nonce must be 16-128 characters of [A-Za-z0-9_-]");
  if (!sig) return refuse("payload.signature is missing");
  auto expected = signature(secret_, *url, *nonce, *accepted);
  if (sig->size() != expected.size() || !crypto::constant_time_equal(*sig, expected))
    return refuse("payload.signature does not verify");
  {
    std::lock_guard<std::mutex> guard{mutex_};
    if (used_.contains(std::string{*nonce})) return refuse("this payment was already used");
    if (used_.size() >= max_nonces_) return refuse("the development verifier has no room for more payments; restart it");
    used_.emplace(*nonce);
  }
  return {true, {}, std::move(payload), *matched};
}

}  // namespace z402::kit
