#pragma once
// A seller's routeTemplate ("/users/:id") replaces the concrete path in the catalog, so it must
// not smuggle traversal or another origin in (docs/wire.md §3).
#include <string_view>

namespace z402::rules {

/// Matches ^/[a-zA-Z0-9_/:.\-~%]+$ and, percent-decoded repeatedly (at most 5 passes, until
/// stable), contains neither ".." nor "://". A template that is still changing after 5
/// passes is invalid.
bool is_valid_route_template(std::string_view route_template);

}  // namespace z402::rules
