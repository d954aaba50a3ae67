#pragma once
// Wall time for lastSeen, lastUpdated and the UTC day of paidCallsToday, for the catalog and the
// service kit alike (the bottom layer: it includes nothing of z402's). Injected so that actor
// tests drive it together with CAF's deterministic timer clock.
#include <atomic>
#include <chrono>
#include <cstdint>

namespace z402 {

class wall_clock {
 public:
  virtual ~wall_clock() = default;
  /// Milliseconds since the Unix epoch.
  virtual std::int64_t now_ms() const = 0;
};

class system_wall_clock final : public wall_clock {
 public:
  std::int64_t now_ms() const override {
    using namespace std::chrono;
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
  }
};

/// A clock that moves only when told to (tests).
class manual_wall_clock final : public wall_clock {
 public:
  explicit manual_wall_clock(std::int64_t start_ms) : now_(start_ms) {}
  std::int64_t now_ms() const override { return now_.load(); }
  void advance(std::chrono::milliseconds d) { now_ += d.count(); }

 private:
  std::atomic<std::int64_t> now_;
};

}  // namespace z402
