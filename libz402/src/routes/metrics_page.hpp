#pragma once
// GET /metrics: the Prometheus text format (0.0.4). What it shows is counts, sizes and times
// only: never a key, a query string, a provider's payTo or an item's text.
#include "routes/handlers.hpp"

namespace z402::routes {

http::response metrics_response(const bazaar_routes& routes);

}  // namespace z402::routes
