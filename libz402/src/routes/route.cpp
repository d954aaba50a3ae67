#include "routes/route.hpp"

#include "routes/web_page.hpp"

namespace z402::routes {

route route_of(std::string_view path) {
  if (path == "/discovery/resources") return route::resources;
  if (path == "/discovery/search") return route::search;
  if (path == "/discovery/resource") return route::resource;
  if (path == "/discovery/terms") return route::terms;
  if (path == "/discovery/declarations") return route::declarations;
  if (path == "/discovery/settled") return route::settled;
  if (path == "/discovery/mcp") return route::mcp;
  if (path.starts_with("/discovery/catalog/")) return route::signed_catalog;
  if (path == "/health") return route::health;
  if (path == "/metrics") return route::metrics;
  if (is_web_path(path)) return route::web;
  return route::not_found;
}

std::string_view allowed_methods(route r) {
  if (r == route::declarations) return "POST, DELETE";
  return r == route::settled || r == route::mcp ? "POST" : "GET";
}

bool method_allowed(route r, boost::beast::http::verb v) {
  using boost::beast::http::verb;
  if (r == route::declarations) return v == verb::post || v == verb::delete_;
  return allowed_methods(r) == "POST" ? v == verb::post : v == verb::get;
}

}  // namespace z402::routes
