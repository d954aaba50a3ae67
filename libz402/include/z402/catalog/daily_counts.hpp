#pragma once
// An item's counted settles for its last 30 UTC days, and when the last one was counted
// (docs/contract.md §5): what paidCallsToday and the quality block (l30DaysTotalCalls,
// lastCalledAt) are rendered from. A ring of 30 day counters indexed by the UTC day number: 136
// bytes an item, whatever its traffic. Counted where paid calls are counted (PROVIDER, each
// payment once), so it is exactly as exact.
#include <array>
#include <cstdint>

namespace z402::catalog {

class daily_counts {
 public:
  static constexpr std::int64_t days = 30;
  using ring = std::array<std::uint32_t, days>;

  daily_counts() = default;
  /// From what was saved: counts by day with `newest_day` last (oldest first), and the time of
  /// the last counted settle (-1: none).
  daily_counts(std::int64_t newest_day, const ring& oldest_first, std::int64_t last_called_ms)
      : newest_day_(newest_day), last_called_ms_(last_called_ms) {
    for (std::int64_t i = 0; i < days; ++i) ring_[slot(newest_day - (days - 1) + i)] = oldest_first[static_cast<std::size_t>(i)];
  }

  /// One more paid call on `day` at `at_ms`. A day after the newest clears the days between
  /// (they had none); a day before it (a clock that went back) counts on the newest day, so a
  /// count is never lost and never lands outside the window.
  void count(std::int64_t day, std::int64_t at_ms) {
    if (day > newest_day_) {
      for (std::int64_t d = newest_day_ + 1; d <= day && d <= newest_day_ + days; ++d) ring_[slot(d)] = 0;
      newest_day_ = day;
    }
    auto& c = ring_[slot(newest_day_)];
    if (c < UINT32_MAX) ++c;
    if (at_ms > last_called_ms_) last_called_ms_ = at_ms;
  }

  /// The settles counted on `day`: 0 for a day after the newest or 30 days or more before it.
  std::uint64_t on(std::int64_t day) const {
    return day > newest_day_ || day <= newest_day_ - days ? 0 : ring_[slot(day)];
  }

  /// The sum over the 30 days that end with `today`.
  std::uint64_t last_30_days(std::int64_t today) const {
    std::uint64_t sum = 0;
    for (std::int64_t d = today - (days - 1); d <= today; ++d) sum += on(d);
    return sum;
  }

  /// The counts of the 30 days that end with `today`, oldest first.
  ring by_day(std::int64_t today) const {
    ring out{};
    for (std::int64_t i = 0; i < days; ++i) out[static_cast<std::size_t>(i)] = static_cast<std::uint32_t>(on(today - (days - 1) + i));
    return out;
  }

  /// Whether anything is counted in the 30 days that end with `today`.
  bool any_within(std::int64_t today) const { return last_30_days(today) > 0; }

  std::int64_t newest_day() const { return newest_day_; }
  std::int64_t last_called_ms() const { return last_called_ms_; }  // -1: never

  friend bool operator==(const daily_counts&, const daily_counts&) = default;

  template <class Inspector>
  friend typename Inspector::result_type inspect(Inspector& f, daily_counts& x) {
    return f(x.newest_day_, x.ring_, x.last_called_ms_);
  }

 private:
  static std::size_t slot(std::int64_t day) { return static_cast<std::size_t>(((day % days) + days) % days); }

  std::int64_t newest_day_ = 0;
  ring ring_{};
  std::int64_t last_called_ms_ = -1;
};

}  // namespace z402::catalog
