#pragma once
// `z402-load test --threshold EXPR`: what a run must show to pass, in k6's manner (a breached
// threshold exits 99). An expression is
//   ENDPOINT.METRIC OP VALUE     list.p99<50ms, search.p99.9<=200ms, *.errors<0.1%, mcp.errors<5
//   [ENDPOINT.]achieved OP F*offered    achieved>=0.99*offered
// ENDPOINT: list, search, resource, mcp, settle, declare, or * (every endpoint of the run
// together). METRIC: p50, p90, p99, p99.9, max (corrected latency: from when each request was
// due), service.p99 (from its send), errors (a count, or a share with %), achieved (requests
// answered per second). OP: <, <=, >, >=. Times take us, ms or s.
#include "z402/error.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace z402::bench {

/// What a threshold reads off one endpoint's figures (or all endpoints' together).
struct endpoint_figures {
  double offered_per_s = 0;   // requests due per second
  double achieved_per_s = 0;  // answered without error per second
  std::uint64_t requests = 0;  // answered or failed
  std::uint64_t errors = 0;
  /// Corrected latency (µs) at a quantile, and the service latency's p99.
  std::uint64_t p50 = 0, p90 = 0, p99 = 0, p999 = 0, max = 0, service_p99 = 0;
};

struct threshold {
  enum class metric { p50, p90, p99, p999, max, service_p99, errors, error_share, achieved_share, achieved };
  enum class op { lt, le, gt, ge };
  std::string text;      // as given
  std::string endpoint;  // "*" for all together
  metric what = metric::p99;
  op how = op::lt;
  double value = 0;      // µs for times, a fraction for shares, a count, requests/s

  /// Whether `f` satisfies it, and the figure it read (in the threshold's own unit, for the report).
  bool holds(const endpoint_figures& f, std::string& measured) const;
};

/// The threshold `text` means, or invalid_request naming what in it is wrong.
expected<threshold> parse_threshold(std::string_view text);

}  // namespace z402::bench
