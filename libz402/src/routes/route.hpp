#pragma once
// The Bazaar's routes by path, and the methods each answers.
#include <string_view>

#include <boost/beast/http/verb.hpp>

namespace z402::routes {

enum class route { health, resources, search, resource, terms, declarations, settled, mcp, metrics, web, signed_catalog, not_found };

/// The metrics label of each route, in the order of `route`.
inline constexpr std::string_view route_names[] = {"health",       "resources", "search", "resource", "terms",
                                                   "declarations", "settled",   "mcp",    "metrics",  "web",
                                                   "signed_catalog", "not_found"};

route route_of(std::string_view path);

/// Methods a route answers, for 405 and Allow.
std::string_view allowed_methods(route r);

bool method_allowed(route r, boost::beast::http::verb v);

}  // namespace z402::routes
