#pragma once
// "At most once per interval": the REGISTRY publishes and PERSISTENCE writes this way, so a
// burst of changes costs one snapshot and one file write. The first change after a quiet
// period acts at once; later ones wait for the interval's end, then act together.
#include <caf/all.hpp>

#include <chrono>

namespace z402::catalog {

class coalescer {
 public:
  explicit coalescer(std::chrono::milliseconds interval = std::chrono::milliseconds{0}) : interval_(interval) {}

  /// A change arrived. Returns true when the caller should act now; otherwise a `wake`
  /// message is (or already was) scheduled to `self` for the end of the interval.
  template <class Self, class Wake>
  bool changed(Self* self, Wake wake) {
    if (scheduled_) return false;
    auto now = self->clock().now();
    auto due = last_ + interval_;
    if (now >= due) return true;
    scheduled_ = true;
    self->delayed_send(self, due - now, wake);
    return false;
  }

  /// The scheduled `wake` arrived: the caller acts now.
  void woke() { scheduled_ = false; }
  /// The caller acted (now, or outside the rhythm, e.g. on flush).
  void acted(caf::actor_clock::time_point now) { last_ = now; }
  bool pending() const { return scheduled_; }

 private:
  std::chrono::milliseconds interval_;
  caf::actor_clock::time_point last_{};
  bool scheduled_ = false;
};

}  // namespace z402::catalog
