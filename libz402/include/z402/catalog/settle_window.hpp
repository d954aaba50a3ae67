#pragma once
// How many settles sent one at a time may await their answer at once
// (engine_options::max_settles_in_flight): a caller past that waits for an answer. Shared by the
// engine and the completions it wraps, so a completion answered after the engine is gone still
// gives its place back into live memory.
#include <atomic>
#include <cstddef>
#include <semaphore>

namespace z402::catalog {

class settle_window {
 public:
  explicit settle_window(std::size_t places) : free_(static_cast<std::ptrdiff_t>(places)) {}

  /// Takes a place, waiting while every place is taken.
  void enter() {
    free_.acquire();
    held_.fetch_add(1, std::memory_order_relaxed);
  }
  /// Gives a place back: once for every enter(), when its settle is answered.
  void leave() {
    held_.fetch_sub(1, std::memory_order_relaxed);
    free_.release();
  }
  std::size_t held() const { return held_.load(std::memory_order_relaxed); }

 private:
  std::counting_semaphore<> free_;
  std::atomic<std::size_t> held_{0};
};

}  // namespace z402::catalog
