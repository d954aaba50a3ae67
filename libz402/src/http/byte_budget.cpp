#include "http/byte_budget.hpp"

#include <utility>
#include <vector>

namespace z402::http {

byte_budget::held::held(held&& other) noexcept
    : budget_(std::exchange(other.budget_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

byte_budget::held& byte_budget::held::operator=(held&& other) noexcept {
  if (this != &other) {
    reset();
    budget_ = std::exchange(other.budget_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void byte_budget::held::reset() {
  if (auto* budget = std::exchange(budget_, nullptr)) budget->release(std::exchange(bytes_, 0));
}

void byte_budget::acquire(std::size_t bytes, std::function<void(held)> admitted) {
  {
    std::lock_guard<std::mutex> lock{mutex_};
    // First come, first let in: a large body is not passed over for ever by small ones.
    if (!waiters_.empty() || !fits(bytes)) {
      waiters_.push_back({bytes, std::move(admitted)});
      waited_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    in_use_ += bytes;
  }
  admitted(held{this, bytes});
}

void byte_budget::release(std::size_t bytes) {
  std::vector<waiter> let_in;
  {
    std::lock_guard<std::mutex> lock{mutex_};
    in_use_ -= bytes;
    while (!waiters_.empty() && fits(waiters_.front().bytes)) {
      in_use_ += waiters_.front().bytes;
      let_in.push_back(std::move(waiters_.front()));
      waiters_.pop_front();
    }
  }
  // Called outside the lock: a waiter may release or acquire again from its callback.
  for (auto& w : let_in) w.admitted(held{this, w.bytes});
}

std::size_t byte_budget::held_bytes() const {
  std::lock_guard<std::mutex> lock{mutex_};
  return in_use_;
}

std::size_t byte_budget::waiting() const {
  std::lock_guard<std::mutex> lock{mutex_};
  return waiters_.size();
}

}  // namespace z402::http
