#pragma once
// Counters, gauges and histograms cheap enough for every request: each is split in cells on
// their own cache lines, a thread adds to its own cell with a relaxed atomic (no lock, no
// line shared between io threads), and a scrape sums the cells.
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace z402::telemetry {

inline constexpr std::size_t metric_cells = 8;

/// This thread's cell: threads are numbered as they first count, modulo metric_cells.
std::size_t cell_of_this_thread();

/// A number that threads add to, each in its own cell; value() sums the cells.
template <class T>
class summed {
 public:
  void add(T n = 1) { cells_[cell_of_this_thread()].v.fetch_add(n, std::memory_order_relaxed); }
  T value() const {
    T n = 0;
    for (auto& c : cells_) n += c.v.load(std::memory_order_relaxed);
    return n;
  }

 private:
  struct alignas(64) cell {
    std::atomic<T> v{0};
  };
  std::array<cell, metric_cells> cells_{};
};

using counter = summed<std::uint64_t>;  // only goes up (Prometheus "counter")
using gauge = summed<std::int64_t>;     // goes up and down (Prometheus "gauge"), e.g. connections open

/// Durations in fixed buckets (upper bounds, ascending); the sum is kept in nanoseconds.
class histogram {
 public:
  static constexpr std::size_t max_buckets = 15;
  explicit histogram(std::span<const std::chrono::nanoseconds> bounds);
  void observe(std::chrono::nanoseconds took);

  struct reading {
    std::vector<std::uint64_t> cumulative;  // per bound, then +Inf
    std::uint64_t count = 0;
    double sum_seconds = 0;
  };
  reading read() const;
  std::span<const std::chrono::nanoseconds> bounds() const { return {bounds_.data(), size_}; }

 private:
  struct alignas(64) cell {
    std::array<std::atomic<std::uint64_t>, max_buckets + 1> buckets{};
    std::atomic<std::uint64_t> sum_ns{0};
  };
  std::array<std::chrono::nanoseconds, max_buckets> bounds_{};
  std::size_t size_ = 0;
  std::array<cell, metric_cells> cells_{};
};

/// The Prometheus text exposition format, version 0.0.4: HELP and TYPE once per family, then
/// its samples. Label values are escaped (backslash, quote, newline).
class prometheus_text {
 public:
  using labels = std::initializer_list<std::pair<std::string_view, std::string_view>>;
  static constexpr std::string_view content_type = "text/plain; version=0.0.4; charset=utf-8";

  void family(std::string_view name, std::string_view type, std::string_view help);
  void sample(std::string_view name, labels l, double value);
  void sample(std::string_view name, labels l, std::uint64_t value);
  void sample(std::string_view name, labels l, std::int64_t value);
  /// The _bucket, _sum and _count samples of one labelled histogram (its family already named).
  void histogram_samples(std::string_view name, labels l, const histogram& h);

  const std::string& text() const { return out_; }

 private:
  void head(std::string_view name, labels l, std::string_view extra_label = {}, std::string_view extra_value = {});
  std::string out_;
};

}  // namespace z402::telemetry
