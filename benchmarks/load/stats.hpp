#pragma once
// What a load run measures, per kind of request: latencies (every sample, microseconds; the
// run is bounded, so is their number), successes, and errors by cause.
#include <boost/json/object.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace z402::bench {

/// `invalid`: declarations meant to be refused; a 400 is their success.
enum kind : std::size_t { list, search, declare, settle, visibility, invalid, kind_count };
inline constexpr std::array<const char*, kind_count> kind_names{"list", "search", "declare", "settle", "visibility", "invalid"};

constexpr std::size_t max_samples_per_lane = 20'000'000;  // ~80 MB per kind at most

/// One lane's record (a lane is one io thread: no sharing, no locks).
struct lane_stats {
  std::array<std::vector<std::uint32_t>, kind_count> micros;
  std::array<std::map<std::string, std::uint64_t>, kind_count> errors;
  void ok(kind k, std::uint64_t us) {
    if (micros[k].size() < max_samples_per_lane) micros[k].push_back(static_cast<std::uint32_t>(std::min<std::uint64_t>(us, UINT32_MAX)));
  }
};

/// Counters the progress line reads every second from another thread.
struct live_counters {
  std::array<std::atomic<std::uint64_t>, kind_count> done{};
  std::array<std::atomic<std::uint64_t>, kind_count> failed{};
};

struct summary_row {
  std::uint64_t count = 0;
  double per_second = 0, p50_ms = 0, p99_ms = 0, p999_ms = 0, max_ms = 0;
  std::map<std::string, std::uint64_t> errors;
};

inline double percentile_ms(std::vector<std::uint32_t>& sorted, double q) {
  if (sorted.empty()) return 0;
  return sorted[static_cast<std::size_t>(q * static_cast<double>(sorted.size() - 1))] / 1000.0;
}

inline summary_row summarise(std::vector<lane_stats>& lanes, kind k, double seconds) {
  summary_row row;
  std::vector<std::uint32_t> all;
  for (auto& l : lanes) {
    all.insert(all.end(), l.micros[k].begin(), l.micros[k].end());
    for (auto& [why, n] : l.errors[k]) row.errors[why] += n;
  }
  std::sort(all.begin(), all.end());
  row.count = all.size();
  row.per_second = seconds > 0 ? static_cast<double>(all.size()) / seconds : 0;
  row.p50_ms = percentile_ms(all, 0.5);
  row.p99_ms = percentile_ms(all, 0.99);
  row.p999_ms = percentile_ms(all, 0.999);
  row.max_ms = all.empty() ? 0 : all.back() / 1000.0;
  return row;
}

}  // namespace z402::bench
