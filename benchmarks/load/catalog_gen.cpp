#include "catalog_gen.hpp"

#include <boost/json.hpp>

#include <array>

namespace z402::bench {
namespace {

namespace json = boost::json;

constexpr std::array<const char*, 10> kinds{"weather", "markdown", "translate", "ocr", "sentiment",
                                            "image", "search", "geocode", "summarize", "speech"};
constexpr std::array<const char*, 10> words{"fast", "reliable", "accurate", "cheap", "private",
                                            "streaming", "batch", "realtime", "multilingual", "structured"};
constexpr std::size_t natural_item_bytes = 1500;  // about what an unpadded item serialises to

std::string amount_of(std::size_t p, std::size_t i) { return std::to_string(100 + (p * 7 + i * 13) % 5000); }

json::object bazaar(const char* kind, std::size_t i, std::size_t padding) {
  json::object params, example_params;
  for (std::size_t k = 0; k <= i % 4; ++k) {
    auto name = std::string{kind} + "Param" + std::to_string(k);
    params[name] = json::object{{"type", "string"}, {"description", "The " + std::string{kind} + " input number " + std::to_string(k)}};
    example_params[name] = "value";
  }
  json::object example{{"result", std::string{kind} + " result"}, {"score", i % 100}};
  // Padding lives in the example output: large examples are what make real items big.
  if (padding) example["sample"] = std::string(padding, "abcdefghij"[i % 10]);
  return {{"info", json::object{{"input", json::object{{"type", "http"}, {"method", "GET"}, {"queryParams", example_params}}},
                                {"output", json::object{{"type", "json"}, {"example", example}}}}},
          {"schema", json::object{{"$schema", "https://json-schema.org/draft/2020-12/schema"},
                                  {"type", "object"},
                                  {"properties", json::object{{"input", json::object{{"type", "object"},
                                                                                      {"properties", json::object{{"type", json::object{{"type", "string"}, {"const", "http"}}},
                                                                                                                  {"method", json::object{{"type", "string"}, {"enum", json::array{"GET"}}}},
                                                                                                                  {"queryParams", json::object{{"type", "object"}, {"properties", params}}}}},
                                                                                      {"required", json::array{"type"}}}},
                                                              {"output", json::object{{"type", "object"}}}}},
                                  {"required", json::array{"input"}}}}};
}

/// Varied sizes around the mean needed to reach fill_bytes: 50% to 150% of it.
std::size_t padding_of(const catalog_shape& shape, std::size_t p, std::size_t i) {
  if (!shape.fill_bytes) return 0;
  auto mean = shape.fill_bytes / (shape.providers * shape.items);
  if (mean <= natural_item_bytes) return 0;
  auto extra = mean - natural_item_bytes;
  auto spread = (p * 31 + i * 17) % 101;  // 0..100
  return extra / 2 + extra * spread / 100;
}

}  // namespace

std::string provider_name(std::size_t p) { return "bench-" + std::to_string(p); }
std::string provider_pay_to(std::size_t p) { return "uregtest1bench" + std::to_string(p); }

std::string item_resource(std::size_t p, std::size_t i) {
  std::string kind = kinds[(p + i) % kinds.size()];
  return "https://" + kind + "-" + std::to_string(p) + ".example.com/v1/" + kind + "/" + std::to_string(i);
}

json::object make_item(const config::rail_terms& terms, const catalog_shape& shape, std::size_t p, std::size_t i) {
  auto kind = kinds[(p + i) % kinds.size()];
  std::string description = std::string{words[i % words.size()]} + " " + kind + " service #" + std::to_string(i) +
                            " from provider " + std::to_string(p) + ". ";
  for (std::size_t r = 0; r <= i % 6; ++r) description += "Returns structured JSON. ";
  auto name = std::string{kind} + " " + std::to_string(p);
  return {{"resource", item_resource(p, i)},
          {"type", "http"},
          {"x402Version", 2},
          {"accepts", json::array{config::accepts_entry(terms, provider_pay_to(p), amount_of(p, i), 60)}},
          {"description", description},
          {"mimeType", "application/json"},
          {"serviceName", name.substr(0, 32)},
          {"tags", json::array{kind, words[(i + 3) % words.size()]}},
          {"extensions", json::object{{"bazaar", bazaar(kind, i, padding_of(shape, p, i))},
                                      {"z402", json::object{{"unit", i % 2 ? "call" : "page"}}}}}};
}

std::string declaration_body(const config::rail_terms& terms, const catalog_shape& shape, std::size_t p,
                             std::string_view revision) {
  json::array items;
  for (std::size_t i = 0; i < shape.items; ++i) items.emplace_back(make_item(terms, shape, p, i));
  if (!revision.empty() && !items.empty()) {
    auto& description = items[0].as_object()["description"].as_string();
    description.append("Revision ").append(revision).append(".");
  }
  return json::serialize(json::object{{"items", std::move(items)}});
}

settle_template settle_body(const config::rail_terms& terms, const catalog_shape& shape, std::size_t p, std::size_t i) {
  return settle_for(config::accepts_entry(terms, provider_pay_to(p), amount_of(p, i), 60), item_resource(p, i));
}

settle_template settle_for(const boost::json::object& requirements, std::string_view url) {
  constexpr std::string_view mark = "NONCE-GOES-HERE";
  json::object payload{{"x402Version", 2},
                       {"resource", json::object{{"url", url}}},
                       {"accepted", requirements},
                       {"payload", json::object{{"nonce", mark}}}};
  auto body = json::serialize(json::object{{"x402Version", 2}, {"paymentPayload", std::move(payload)}, {"paymentRequirements", requirements}});
  auto at = body.find(mark);
  return {body.substr(0, at), body.substr(at + mark.size())};
}

std::string settle_template::with_nonce(std::string_view nonce) const {
  std::string body;
  body.reserve(head.size() + nonce.size() + tail.size());
  body.append(head).append(nonce).append(tail);
  return body;
}

}  // namespace z402::bench
