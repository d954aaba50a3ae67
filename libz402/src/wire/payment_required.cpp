#include "z402/wire/payment_required.hpp"

#include "z402/wire/base64.hpp"
#include "z402/wire/json.hpp"

#include <boost/json/array.hpp>

namespace z402::wire {
namespace {

namespace json = boost::json;

constexpr std::size_t max_depth = 64;

std::string text_of(const json::object& o, std::string_view key) {
  auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string{v->as_string()} : std::string{};
}

}  // namespace

std::optional<payment_required_answer> payment_required_of(std::optional<std::string_view> header, std::string_view body) {
  if (header) {
    auto decoded = base64_decode(*header);
    if (!decoded) return std::nullopt;
    auto doc = parse_strict(*decoded, max_depth);
    if (!doc || !doc->is_object()) return std::nullopt;
    return payment_required_answer{std::move(doc->as_object()), "PAYMENT-REQUIRED header (x402 v2)"};
  }
  auto doc = parse_strict(body, max_depth);
  if (!doc || !doc->is_object()) return std::nullopt;
  auto& v1 = doc->as_object();
  auto* accepts = v1.if_contains("accepts");
  if (!accepts || !accepts->is_array() || accepts->as_array().empty() || !accepts->as_array()[0].is_object()) return std::nullopt;
  auto& first = accepts->as_array()[0].as_object();
  json::object v2{{"x402Version", 2},
                  {"resource", {{"url", text_of(first, "resource")}, {"description", text_of(first, "description")},
                                {"mimeType", text_of(first, "mimeType")}}}};
  json::array entries;
  for (auto& e : accepts->as_array()) {
    if (!e.is_object()) continue;
    auto entry = e.as_object();
    // A copy first: inserting "amount" may move the object's entries, the one read from included.
    if (auto* amount = entry.if_contains("maxAmountRequired")) {
      json::value v1_amount = *amount;
      entry["amount"] = std::move(v1_amount);
    }
    for (auto k : {"maxAmountRequired", "resource", "description", "mimeType", "outputSchema"}) entry.erase(k);
    entries.push_back(std::move(entry));
  }
  v2["accepts"] = std::move(entries);
  return payment_required_answer{std::move(v2), "JSON body (x402 v1)"};
}

std::vector<std::string> pay_tos_of(const json::object& holder) {
  std::vector<std::string> out;
  auto* accepts = holder.if_contains("accepts");
  if (!accepts || !accepts->is_array()) return out;
  for (auto& e : accepts->as_array())
    if (auto* entry = e.if_object())
      if (auto pay_to = text_of(*entry, "payTo"); !pay_to.empty()) out.push_back(std::move(pay_to));
  return out;
}

}  // namespace z402::wire
