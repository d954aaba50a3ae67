#include "thresholds.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <utility>

namespace z402::bench {
namespace {

constexpr std::array endpoints{"list", "search", "resource", "mcp", "settle", "declare", "*"};

error bad(std::string_view text, std::string reason) {
  return refused("threshold", "'" + std::string{text} + "': " + std::move(reason));
}

// A number with an optional unit: a time (us, ms, s) in µs, a share (%) as a fraction.
struct quantity {
  double value = 0;
  enum class unit { none, time, share } kind = unit::none;
};

std::optional<quantity> read_quantity(std::string_view s) {
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end == s.data() || v < 0) return std::nullopt;
  std::string_view unit{end, static_cast<std::size_t>(s.data() + s.size() - end)};
  if (unit.empty()) return quantity{v, quantity::unit::none};
  if (unit == "us") return quantity{v, quantity::unit::time};
  if (unit == "ms") return quantity{v * 1e3, quantity::unit::time};
  if (unit == "s") return quantity{v * 1e6, quantity::unit::time};
  if (unit == "%") return quantity{v / 100, quantity::unit::share};
  return std::nullopt;
}

std::string ms(double micros) {
  char out[32];
  std::snprintf(out, sizeof out, "%.2fms", micros / 1e3);
  return out;
}

std::string share(double fraction) {
  char out[32];
  std::snprintf(out, sizeof out, "%.3f%%", fraction * 100);
  return out;
}

}  // namespace

expected<threshold> parse_threshold(std::string_view text) {
  threshold t;
  t.text = std::string{text};
  auto at = text.find_first_of("<>");
  if (at == std::string_view::npos || at == 0) return bad(text, "expected NAME<VALUE, NAME<=VALUE, NAME>VALUE or NAME>=VALUE");
  auto name = text.substr(0, at);
  bool equal = at + 1 < text.size() && text[at + 1] == '=';
  t.how = text[at] == '<' ? (equal ? threshold::op::le : threshold::op::lt) : (equal ? threshold::op::ge : threshold::op::gt);
  auto rhs = text.substr(at + (equal ? 2 : 1));

  // achieved, alone or after an endpoint: against a share of the offered rate, or a rate.
  std::string_view metric = name;
  t.endpoint = "*";
  if (auto dot = name.find('.'); dot != std::string_view::npos && name != "service.p99") {
    t.endpoint = std::string{name.substr(0, dot)};
    metric = name.substr(dot + 1);
  }
  if (std::find(endpoints.begin(), endpoints.end(), t.endpoint) == endpoints.end())
    return bad(text, "no endpoint " + t.endpoint + " (list, search, resource, mcp, settle, declare or *)");
  if (metric == "achieved") {
    if (rhs.ends_with("*offered")) {
      auto factor = read_quantity(rhs.substr(0, rhs.size() - 8));
      if (!factor || factor->kind != quantity::unit::none) return bad(text, "expected achieved OP F*offered, F a number");
      t.what = threshold::metric::achieved_share;
      t.value = factor->value;
      return t;
    }
    auto rate = read_quantity(rhs);
    if (!rate || rate->kind != quantity::unit::none) return bad(text, "achieved is compared with F*offered or a rate per second");
    t.what = threshold::metric::achieved;
    t.value = rate->value;
    return t;
  }
  auto q = read_quantity(rhs);
  if (!q) return bad(text, "the value must be a number, with us, ms, s or %");
  if (metric == "errors") {
    if (q->kind == quantity::unit::time) return bad(text, "errors are a count or a share (%)");
    t.what = q->kind == quantity::unit::share ? threshold::metric::error_share : threshold::metric::errors;
    t.value = q->value;
    return t;
  }
  static constexpr std::array<std::pair<std::string_view, threshold::metric>, 6> latencies{
      {{"p50", threshold::metric::p50}, {"p90", threshold::metric::p90}, {"p99", threshold::metric::p99},
       {"p99.9", threshold::metric::p999}, {"max", threshold::metric::max}, {"service.p99", threshold::metric::service_p99}}};
  for (auto& [label, m] : latencies)
    if (metric == label) {
      if (q->kind != quantity::unit::time) return bad(text, "a latency takes a unit: us, ms or s");
      t.what = m;
      t.value = q->value;
      return t;
    }
  return bad(text, "no metric " + std::string{metric} + " (p50, p90, p99, p99.9, max, service.p99, errors, achieved)");
}

bool threshold::holds(const endpoint_figures& f, std::string& measured) const {
  double got = 0;
  double against = value;
  switch (what) {
    case metric::p50: got = static_cast<double>(f.p50); break;
    case metric::p90: got = static_cast<double>(f.p90); break;
    case metric::p99: got = static_cast<double>(f.p99); break;
    case metric::p999: got = static_cast<double>(f.p999); break;
    case metric::max: got = static_cast<double>(f.max); break;
    case metric::service_p99: got = static_cast<double>(f.service_p99); break;
    case metric::errors: got = static_cast<double>(f.errors); break;
    case metric::error_share: got = f.requests ? static_cast<double>(f.errors) / static_cast<double>(f.requests) : 0; break;
    case metric::achieved: got = f.achieved_per_s; break;
    case metric::achieved_share:
      got = f.achieved_per_s;
      against = value * f.offered_per_s;
      break;
  }
  switch (what) {
    case metric::errors: measured = std::to_string(f.errors); break;
    case metric::error_share: measured = share(got); break;
    case metric::achieved:
    case metric::achieved_share: {
      char out[64];
      std::snprintf(out, sizeof out, "%.1f/s (offered %.1f/s)", f.achieved_per_s, f.offered_per_s);
      measured = out;
      break;
    }
    default: measured = ms(got);
  }
  switch (how) {
    case op::lt: return got < against;
    case op::le: return got <= against;
    case op::gt: return got > against;
    case op::ge: return got >= against;
  }
  return false;
}

}  // namespace z402::bench
