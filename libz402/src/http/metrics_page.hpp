#pragma once
// GET /metrics: the Prometheus text format (0.0.4). What it shows is counts, sizes and times
// only: never a key, a query string, a provider's payTo or an item's text.
#include "http/handlers.hpp"

namespace z402::http {

response metrics_response(const app_state& app);

}  // namespace z402::http
