#pragma once
// The x402 v2 PaymentRequired a route sends unpaid, and what is derived from it: the item a
// declaration lists (so the listing offers exactly what the route asks for) and the manifest.
#include "z402/kit/paid_route.hpp"

#include <boost/json/object.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace z402::kit {

/// {"x402Version":2,"error"?,"resource":{url,description,mimeType,serviceName,tags},
///  "accepts":[terms + payTo + price],"extensions":{"bazaar":...,"z402":{"unit":...}}}
/// for a request of `route` at `path`.
boost::json::object payment_required(const service_identity& id, const paid_route& route, std::string_view path,
                                     std::string_view error = {});

/// The DiscoveryResource a declaration lists for the route, built from its 402.
boost::json::object declared_item(const boost::json::object& payment_required);

/// {"items":[...]} for POST /discovery/declarations.
boost::json::object declaration(const service_identity& id, const std::vector<paid_route>& routes);

/// The /.well-known/x402 document: identity, terms, payTo and every route's call shape, price
/// and accepts (the 402's, payTo included: what an agent binds a listing to its origin by). Deterministic: the same routes give the same bytes (no timestamps, no run state).
std::string manifest(const service_identity& id, const std::vector<paid_route>& routes);

/// The path a route's declaration and manifest entry are built from.
std::string_view example_path(const paid_route& route);

}  // namespace z402::kit
