#pragma once
// The Bazaar discovery extension, built the way the official `declareDiscoveryExtension`
// (@x402/extensions 2.27.0) builds it for query routes, body routes and MCP tools, plus the
// enrichment its server extension applies per request (method, pathParams, routeTemplate).
// The output equals the official package's after key sorting: tests/kit holds the vectors.
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace z402::kit {

struct output_spec {
  boost::json::value example;                 // listed only when it is truthy, as upstream
  std::optional<boost::json::object> schema;  // merged into the example's schema
};

/// GET-style route: inputs travel in the query string.
struct query_route {
  std::optional<std::string> method;  // usually left out: the request adds it
  boost::json::object params;         // example query parameters
  boost::json::value params_schema = boost::json::object{{"properties", boost::json::object{}}};
  std::optional<boost::json::object> path_params;
  std::optional<boost::json::value> path_params_schema;
  std::optional<output_spec> output;
};

/// Body route (POST, PUT, PATCH).
struct body_route {
  std::optional<std::string> method;
  std::string body_type = "json";  // json | form-data | text
  boost::json::value body = boost::json::object{};  // example body
  boost::json::value body_schema = boost::json::object{{"properties", boost::json::object{}}};
  std::optional<boost::json::object> path_params;
  std::optional<boost::json::value> path_params_schema;
  std::optional<output_spec> output;
};

/// An MCP tool; its identity is (resource URL, tool name).
struct mcp_tool {
  std::string tool_name;
  std::optional<std::string> description;
  std::optional<std::string> transport;  // streamable-http | sse
  boost::json::object input_schema;
  std::optional<boost::json::value> example;
  std::optional<output_spec> output;
};

using discovery_spec = std::variant<query_route, body_route, mcp_tool>;

/// {"bazaar": {"info": ..., "schema": ...}}
boost::json::object declare_discovery_extension(const discovery_spec& spec);

/// What a seller's server adds to the `bazaar` extension (the inner object) for one request:
/// the method (in info and schema), and for a route pattern with parameters (`:id`, `[id]`,
/// `*`) the `routeTemplate` and the request's `pathParams`. MCP declarations pass unchanged.
boost::json::object enrich_for_request(const boost::json::object& bazaar, std::string_view method,
                                       std::optional<std::string_view> route_pattern, std::string_view path);

}  // namespace z402::kit
