#pragma once
// What a paid service is made of: its identity and payment terms, and its routes, each with a
// price, a billing unit, its call shape for the Bazaar and the code that answers it. This is
// the single source of truth the 402s, the declarations and the manifest are all built from.
#include "z402/config/rail_terms.hpp"
#include "z402/http/message.hpp"
#include "z402/kit/bazaar_builder.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace z402::kit {

struct service_identity {
  std::string service_name;       // serviceName of every route: 1-32 printable ASCII
  std::vector<std::string> tags;  // at most 5
  std::string public_url;         // origin the routes are reached at, e.g. https://api.example.com
  std::string pay_to;
  config::rail_terms terms;
  std::int64_t max_timeout_seconds = 60;
};

/// One paid call as the route's code sees it.
struct route_call {
  const http::request& request;
  boost::json::object path_params;  // by name, from the route's pattern
  std::string_view query;           // raw query string, without '?'
};

/// What a route answers; a non-2xx answer is not counted as delivered.
struct route_answer {
  unsigned status = 200;
  boost::json::value body;
};

struct paid_route {
  std::string method;        // GET, POST, ...
  std::string pattern;       // "/v1/primes/:n": literal segments and :name segments
  std::string example_path;  // a concrete path the declaration is built from; the pattern when empty
  std::string amount;        // price in the asset's atomic units
  std::string unit;          // billing unit, e.g. "call", "page"
  std::string description;
  std::string mime_type = "application/json";
  discovery_spec discovery;
  std::function<route_answer(const route_call&)> answer;
};

/// The path parameters of `path` under `pattern`, or nullopt when it does not match.
std::optional<boost::json::object> match_pattern(std::string_view pattern, std::string_view path);

}  // namespace z402::kit
