#pragma once
// The PaymentRequired an unpaid request is answered with, as a client reads it (docs/wire.md §4):
// x402 v2 carries it base64-encoded in the PAYMENT-REQUIRED header; x402 v1 in a JSON body.
// z402-seller check reads a route's terms from it, the agent the payTo a live route names.
#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace z402::wire {

struct payment_required_answer {
  boost::json::object required;  // v2's shape: x402Version, resource {url, description, mimeType}, accepts
  std::string_view how;          // "PAYMENT-REQUIRED header (x402 v2)" or "JSON body (x402 v1)"
};

/// From the PAYMENT-REQUIRED header when there is one (and nothing else then), else from a v1
/// body (its accepts entries renamed to v2's: amount for maxAmountRequired, resource fields
/// lifted); nullopt when neither holds a PaymentRequired.
std::optional<payment_required_answer> payment_required_of(std::optional<std::string_view> header, std::string_view body);

/// The payTo of each accepts entry of an item, a PaymentRequired or a manifest entry, in order,
/// empty ones left out.
std::vector<std::string> pay_tos_of(const boost::json::object& holder);

}  // namespace z402::wire
