#pragma once
// What a catalog read made of a page, kept per ETag (a snapshot version and a request) and
// shared by every io thread: the page compressed (gzip_cache) or written to a file the kernel
// sends without copying (page_files). A value is made once per ETag and then served from here
// with no copy, the answer holding it alive until written. Slots are atomic pointers chosen by
// the ETag's hash: a lookup takes no lock. A miss claims the slot for its ETag and makes the
// value; a reader that finds it being made by another one does not wait and does not make it
// again: it is answered with the page as rendered. Right after a new version, when every
// reader misses at once, each page is made once instead of once per reader.
//
// The values held in the slots stay within a byte budget: over it, a claim may only replace a
// slot's made value (which leaves the budget with it), never take an empty or claimed one.
#include "z402/telemetry/metrics.hpp"

#include <array>
#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace z402::http {

template <class Value, std::size_t Slots>
class etag_cache {
 public:
  struct entry {
    std::string etag;
    std::optional<Value> value;  // empty while claimed: another reader is making it
    std::size_t bytes = 0;       // the value's share of the budget
  };
  using entry_ptr = std::shared_ptr<const entry>;

  explicit etag_cache(std::size_t budget_bytes) : budget_(budget_bytes) {}

  /// The value for `etag`, made by `make` (returning it and its size, or nothing) on a miss;
  /// nullptr when another reader is making it, over the budget, or when `make` could not.
  template <class Make>
  entry_ptr get(std::string_view etag, Make&& make) {
    auto found = find_or_claim(etag);
    if (!found.claim) return std::move(found.hit);
    auto value = make();
    if (!value) {
      release(std::move(found.claim));
      return nullptr;
    }
    return fill(std::move(found.claim), std::move(value->first), value->second);
  }

  /// The two steps of `get`. `hit`: the value is cached. `claim`: it was not, and this caller
  /// now makes it (`fill`). Neither: another caller holds the claim, or the budget is spent.
  struct lookup {
    entry_ptr hit;
    entry_ptr claim;
  };
  lookup find_or_claim(std::string_view etag) {
    auto& slot = slot_of(etag);
    auto cached = slot.load(std::memory_order_acquire);
    if (cached && cached->etag == etag) {
      if (!cached->value) {
        deferred.add();
        return {};
      }
      hits.add();
      return {std::move(cached), nullptr};
    }
    if ((!cached || !cached->value) && held_.load(std::memory_order_relaxed) >= budget_) {
      over_budget.add();
      return {};
    }
    // Claim the slot for this ETag; whoever loses the race answers the page as rendered.
    auto claim = std::make_shared<const entry>(entry{std::string{etag}, std::nullopt, 0});
    if (!slot.compare_exchange_strong(cached, claim, std::memory_order_acq_rel)) {
      deferred.add();
      return {};
    }
    if (cached) held_.fetch_sub(cached->bytes, std::memory_order_relaxed);
    return {nullptr, std::move(claim)};
  }
  /// Caches the value made for a claim (unless a newer claim took the slot meanwhile).
  entry_ptr fill(entry_ptr claim, Value value, std::size_t bytes) {
    made.add();
    auto fresh = std::make_shared<const entry>(entry{claim->etag, std::move(value), bytes});
    // Another ETag may have claimed the slot meanwhile (a hash collision): the newer claim stays.
    if (slot_of(claim->etag).compare_exchange_strong(claim, fresh, std::memory_order_acq_rel))
      held_.fetch_add(bytes, std::memory_order_relaxed);
    return fresh;
  }

  /// Gives a claim up without a value: the next reader of its ETag claims it again.
  void release(entry_ptr claim) {
    slot_of(claim->etag).compare_exchange_strong(claim, entry_ptr{}, std::memory_order_acq_rel);
  }

  /// Bytes of the values in the slots (answers being written may hold older ones a while).
  std::size_t held_bytes() const { return held_.load(std::memory_order_relaxed); }

  telemetry::counter hits;
  telemetry::counter made;
  telemetry::counter deferred;     // answered as rendered while another reader made the value
  telemetry::counter over_budget;  // answered as rendered: the budget was spent

 private:
  std::atomic<entry_ptr>& slot_of(std::string_view etag) { return slots_[std::hash<std::string_view>{}(etag) % Slots]; }

  std::array<std::atomic<entry_ptr>, Slots> slots_{};
  std::atomic<std::size_t> held_{0};
  std::size_t budget_;
};

}  // namespace z402::http
