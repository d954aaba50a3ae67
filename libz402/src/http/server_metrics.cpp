#include "z402/http/server_metrics.hpp"

#include <array>

namespace z402::http {
namespace {

using namespace std::chrono_literals;
// From a cached page (~100 us) to a declaration waiting on a busy catalog (seconds).
constexpr std::array<std::chrono::nanoseconds, 15> latency_bounds{100us, 250us, 500us, 1ms,   2500us, 5ms,  10ms, 25ms,
                                                                  50ms,  100ms, 250ms, 500ms, 1s,     2500ms, 10s};
constexpr std::array<std::string_view, 5> status_classes{"1xx", "2xx", "3xx", "4xx", "5xx"};

}  // namespace

struct server_metrics::per_route {
  std::array<telemetry::counter, status_classes.size()> requests;
  telemetry::histogram latency{latency_bounds};
};

server_metrics::server_metrics(std::span<const std::string_view> routes)
    : routes_(routes.begin(), routes.end()), by_route_(std::make_unique<per_route[]>(routes.size())) {}

server_metrics::~server_metrics() = default;

void server_metrics::request_done(std::size_t route, unsigned status, std::chrono::nanoseconds took) {
  if (route >= routes_.size()) return;
  auto cls = status >= 100 && status < 600 ? status / 100 - 1 : 4;
  by_route_[route].requests[cls].add();
  by_route_[route].latency.observe(took);
}

void server_metrics::render(telemetry::prometheus_text& out) const {
  out.family("z402_http_requests_total", "counter", "HTTP requests answered, by route and status class.");
  for (std::size_t r = 0; r < routes_.size(); ++r)
    for (std::size_t c = 0; c < status_classes.size(); ++c)
      out.sample("z402_http_requests_total", {{"route", routes_[r]}, {"code", status_classes[c]}},
                 by_route_[r].requests[c].value());
  out.family("z402_http_request_duration_seconds", "histogram",
             "Time from a request's first byte read to its answer's last byte written, by route.");
  for (std::size_t r = 0; r < routes_.size(); ++r)
    out.histogram_samples("z402_http_request_duration_seconds", {{"route", routes_[r]}}, by_route_[r].latency);
  out.family("z402_http_connections_open", "gauge", "Client connections open now.");
  out.sample("z402_http_connections_open", {}, connections_open.value());
  out.family("z402_http_connections_accepted_total", "counter", "Client connections accepted.");
  out.sample("z402_http_connections_accepted_total", {}, connections_accepted.value());
  out.family("z402_http_connections_max", "gauge", "Connections open at once past which new ones are refused.");
  out.sample("z402_http_connections_max", {}, connections_max.value());
  out.family("z402_http_connections_refused_total", "counter", "Client connections refused past the connection limit.");
  out.sample("z402_http_connections_refused_total", {}, connections_refused.value());
  out.family("z402_http_requests_in_flight", "gauge", "Requests read and not yet answered.");
  out.sample("z402_http_requests_in_flight", {}, requests_in_flight.value());
  out.family("z402_http_read_buffers", "gauge",
             "Connections holding a read buffer now: those reading a request, busy plain ones and every TLS "
             "connection (an idle plain keep-alive connection holds none).");
  out.sample("z402_http_read_buffers", {}, read_buffers.value());
  out.family("z402_tls_handshake_failures_total", "counter", "TLS handshakes that failed or timed out.");
  out.sample("z402_tls_handshake_failures_total", {}, tls_handshake_failures.value());
}

}  // namespace z402::http
