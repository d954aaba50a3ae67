#pragma once
// Valid items as the official builder makes them, for tests to break one field at a time.
#include "z402/config/rail_terms.hpp"

#include <boost/json.hpp>

#include <string>
#include <vector>

namespace z402::test {

inline const std::string pay_to = "uregtest1provider";

inline boost::json::object accepts_entry(const config::rail_terms& terms) {
  return config::accepts_entry(terms, pay_to, "1000", 60);
}

/// The GET route the official declareDiscoveryExtension builds, with the method a seller's
/// server adds at request time.
inline boost::json::object bazaar_get() {
  return boost::json::parse(R"({
    "info":{"input":{"type":"http","method":"GET","queryParams":{"city":"Lisbon"}},
            "output":{"type":"json","example":{"temperature":21}}},
    "schema":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
      "properties":{
        "input":{"type":"object","properties":{
            "type":{"type":"string","const":"http"},
            "method":{"type":"string","enum":["GET"]},
            "queryParams":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}},
          "required":["type"],"additionalProperties":false},
        "output":{"type":"object","properties":{"type":{"type":"string"},"example":{"type":"object"}},"required":["type"]}},
      "required":["input"]}})").as_object();
}

inline boost::json::object bazaar_mcp() {
  return boost::json::parse(R"({
    "info":{"input":{"type":"mcp","toolName":"sentiment","inputSchema":{"type":"object"},"transport":"streamable-http"}},
    "schema":{"type":"object","properties":{"input":{"type":"object","properties":{"type":{"const":"mcp"}}}}}})").as_object();
}

inline boost::json::object valid_item(const config::rail_terms& terms, std::string resource = "https://weather.example.com/v1/weather") {
  return {{"resource", resource},
          {"type", "http"},
          {"x402Version", 2},
          {"accepts", boost::json::array{accepts_entry(terms)}},
          {"description", "Current weather for a city."},
          {"mimeType", "application/json"},
          {"serviceName", "Weather"},
          {"tags", boost::json::array{"weather", "forecast"}},
          {"iconUrl", "https://weather.example.com/icon.png"},
          {"extensions", {{"bazaar", bazaar_get()}, {"z402", {{"unit", "call"}}}}}};
}

inline boost::json::value declaration_of(boost::json::array items) {
  return boost::json::object{{"items", std::move(items)}};
}

/// One row of a realistic catalog, for ranking tests.
struct listing {
  const char* name;
  const char* url;
  const char* description;
  std::vector<const char*> tags;
  const char* unit;
  std::vector<const char*> params;
  const char* method = "GET";
};

/// The DiscoveryResource of a row: its parameters as the example input of its method.
inline boost::json::object fields_of(const listing& row) {
  boost::json::object query;
  for (auto p : row.params) query[p] = "example";
  boost::json::object input{{"type", "http"}, {"method", row.method}};
  input[std::string_view{row.method} == "GET" ? "queryParams" : "body"] = query;
  boost::json::array tags;
  for (auto t : row.tags) tags.push_back(boost::json::string(t));
  return {{"resource", row.url},
          {"type", "http"},
          {"x402Version", 2},
          {"accepts", boost::json::array{accepts_entry(config::default_rail_terms())}},
          {"description", row.description},
          {"serviceName", row.name},
          {"tags", tags},
          {"extensions", {{"bazaar", {{"info", {{"input", input}}}, {"schema", boost::json::object{}}}}, {"z402", {{"unit", row.unit}}}}}};
}

}  // namespace z402::test
