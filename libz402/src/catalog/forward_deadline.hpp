#pragma once
// Until when a write a follower forwards may still land at the primary. The follower waits
// forward_timeout for the primary's answer and then answers 503: the client takes that as "not
// done" and may declare again through another node. A forward held up in the link past that
// moment (a partition that heals later) must not land after the newer write, so each forwarded
// declaration or delisting carries a deadline on the primary's steady clock, and the PROVIDER
// refuses it past the deadline (docs/cluster.md, on a forward held in its link).
//
// The follower knows the primary's clock from the feed: each message says when the primary sent
// it. A message's time in transit only makes the primary's clock look earlier than it is, so the
// estimate is never late and neither is the deadline: whatever lands, lands before the follower's
// 503. Steady clocks, not wall clocks: an operator setting the date moves neither.
#include <caf/actor_clock.hpp>

#include <chrono>
#include <cstdint>
#include <optional>

namespace z402::catalog {

/// Milliseconds on this process's steady clock: CAF's actor clock (the deterministic one in tests).
inline std::int64_t steady_ms(const caf::actor_clock& clock) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(clock.now().time_since_epoch()).count();
}

/// Whether a write whose deadline is `deadline_ms` (0: none, taken at this node) may no longer
/// land at `now_ms`, on the primary's steady clock: only once the deadline has passed.
inline bool past_deadline(std::int64_t deadline_ms, std::int64_t now_ms) { return deadline_ms != 0 && now_ms > deadline_ms; }

/// The primary's steady clock as a follower knows it from the feed's messages.
class primary_clock {
 public:
  /// A message the primary sent at its `sent_ms`, received at this node's `now_ms`.
  void heard(std::int64_t sent_ms, std::int64_t now_ms) {
    auto offset = sent_ms - now_ms;
    if (!offset_ || offset > *offset_) offset_ = offset;  // the message that waited least
  }
  /// A new link: perhaps another run of the primary, on another machine's clock.
  void forget() { offset_.reset(); }
  /// On the primary's clock, the last moment a write forwarded at `now_ms`, and waited for for
  /// `wait`, may land; nothing before the feed has sent anything on this link.
  std::optional<std::int64_t> deadline(std::int64_t now_ms, std::chrono::milliseconds wait) const {
    if (!offset_) return std::nullopt;
    return now_ms + *offset_ + wait.count();
  }

 private:
  std::optional<std::int64_t> offset_;  // the primary's clock minus this node's: at most the true one
};

}  // namespace z402::catalog
