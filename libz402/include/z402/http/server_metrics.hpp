#pragma once
// What the HTTP front end counts for /metrics: requests by route and status class, latency by
// route, connections open, requests in flight and TLS handshakes that failed. Routes are the
// handler's fixed names (never a raw path: no label an attacker can multiply).
#include "z402/telemetry/metrics.hpp"

#include <chrono>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

namespace z402::http {

class server_metrics {
 public:
  explicit server_metrics(std::span<const std::string_view> routes);
  ~server_metrics();

  void request_done(std::size_t route, unsigned status, std::chrono::nanoseconds took);
  telemetry::gauge connections_open;
  telemetry::counter connections_accepted;
  telemetry::gauge connections_max;              // the limit in force
  telemetry::counter connections_refused;        // refused past the connection limit
  telemetry::gauge requests_in_flight;
  telemetry::gauge read_buffers;                 // connections holding a read buffer
  telemetry::counter tls_handshake_failures;

  void render(telemetry::prometheus_text& out) const;

 private:
  struct per_route;
  std::vector<std::string_view> routes_;
  std::unique_ptr<per_route[]> by_route_;
};

}  // namespace z402::http
