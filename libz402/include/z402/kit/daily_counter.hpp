#pragma once
// A count that belongs to one UTC day: it reads 0 from 00:00:00.000 UTC of the next day, with
// or without traffic. Lock-free: the day and the count share one atomic word.
#include <atomic>
#include <cstdint>

namespace z402::kit {

class daily_counter {
 public:
  void add(std::int64_t now_ms) {
    auto day = day_of(now_ms);
    auto seen = state_.load();
    std::uint64_t next;
    do {
      next = (seen >> 32) == day ? seen + 1 : (day << 32) | 1;
    } while (!state_.compare_exchange_weak(seen, next));
  }

  std::uint32_t read(std::int64_t now_ms) const {
    auto seen = state_.load();
    return (seen >> 32) == day_of(now_ms) ? static_cast<std::uint32_t>(seen) : 0;
  }

 private:
  static std::uint64_t day_of(std::int64_t ms) { return static_cast<std::uint64_t>(ms / 86'400'000); }
  std::atomic<std::uint64_t> state_{0};
};

}  // namespace z402::kit
