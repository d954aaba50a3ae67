#pragma once
// A bound on the bytes of request bodies held at once. A declaration's body is held from its
// read until its checks are done: the write slots bound how many there are (1,024), not their
// bytes, and at 17 MiB each that is 17 GiB. Heap-profiled on a build without tcmalloc, the benchmark's heartbeats of a full
// catalog held 14 MB of bodies at the peak (benchmarks/results/profile.md, "Memory"); nothing
// but the checks thread's pace bounded that.
//
// A body is read only once its bytes fit, in the order the requests asked; until then its
// connection reads nothing more, and the rest of the body waits in the kernel's socket buffers
// and the client's. A body larger than the whole budget is let in alone, when nothing else is
// held, so every body the route's limit allows is read eventually.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>

namespace z402::http {

class byte_budget {
 public:
  /// The bytes one admitted body holds: given back when this is destroyed or reset, on whatever
  /// thread that is, and the waiters that then fit are let in.
  class held {
   public:
    held() = default;
    held(held&& other) noexcept;
    held& operator=(held&& other) noexcept;
    held(const held&) = delete;
    held& operator=(const held&) = delete;
    ~held() { reset(); }
    void reset();
    std::size_t bytes() const { return bytes_; }

   private:
    friend class byte_budget;
    held(byte_budget* budget, std::size_t bytes) : budget_(budget), bytes_(bytes) {}
    byte_budget* budget_ = nullptr;
    std::size_t bytes_ = 0;
  };

  explicit byte_budget(std::size_t capacity) : capacity_(capacity) {}
  byte_budget(const byte_budget&) = delete;
  byte_budget& operator=(const byte_budget&) = delete;

  /// Calls `admitted` once `bytes` fit: at once, on this thread, when they do and nobody waits
  /// before them; otherwise later, on the thread whose release made room. The budget must
  /// outlive every `held` it gives.
  void acquire(std::size_t bytes, std::function<void(held)> admitted);

  std::size_t capacity() const { return capacity_; }
  /// Bytes held by admitted bodies now (a gauge on /metrics).
  std::size_t held_bytes() const;
  /// Bodies waiting to be let in now (a gauge on /metrics).
  std::size_t waiting() const;
  /// Bodies that had to wait, since start (a counter on /metrics).
  std::uint64_t waited() const { return waited_.load(std::memory_order_relaxed); }

 private:
  struct waiter {
    std::size_t bytes;
    std::function<void(held)> admitted;
  };
  bool fits(std::size_t bytes) const { return in_use_ == 0 || in_use_ + bytes <= capacity_; }
  void release(std::size_t bytes);

  const std::size_t capacity_;
  mutable std::mutex mutex_;
  std::size_t in_use_ = 0;
  std::deque<waiter> waiters_;
  std::atomic<std::uint64_t> waited_{0};
};

}  // namespace z402::http
