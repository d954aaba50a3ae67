#pragma once
// What a catalog read made of a page, kept per ETag (a snapshot version and a request) and
// shared by every io thread: the page compressed (gzip_cache) or written to a file the kernel
// sends without copying (page_files). A value is made once per ETag and then served from here
// with no copy, the answer holding it alive until written. A lookup takes no lock: slots are
// atomic pointers. A miss claims a slot for its ETag and makes the value; a reader that finds
// it being made by another one does not wait and does not make it again: it is answered with
// the page as rendered. Right after a new version, when every reader misses at once, each page
// is made once instead of once per reader.
//
// An ETag may live in any of the `Ways` slots of its set (its hash picks the set): with one
// slot per ETag, pages whose hashes met took turns in it and were made again on every read
// (the load generator's 41 pages in 64 slots: 41 % of the reads wrote a file; in 32 sets of 4,
// one set still drew 5 of them). A value made for a snapshot older than the reader's
// (`cache_version`) is superseded: no reader asks for its ETag again once a newer version is
// out. A miss takes a slot holding a superseded value first, then an empty slot, else the one
// least recently used. The values in the slots stay within a byte budget: a miss over it first
// empties every slot that holds a superseded value, in any set, and if still over, may only
// replace a cold value (not read for as many misses as the cache has slots), so that pages
// read in turn, more than fit, keep the ones cached instead of each replacing the next.
// Superseded values go at once because waiting for them to turn cold held the budget: under a
// write load that publishes a dozen versions a second, the last versions' files of 150 KB
// filled the 8 MiB, and a quarter of the plain reads were answered as rendered, copied whole.
#include "routes/page_content.hpp"
#include "z402/telemetry/metrics.hpp"

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace z402::routes {

/// The snapshot a cached value was made from (its run and version, as in its ETag).
struct cache_version {
  std::uint64_t epoch = 0;
  std::uint64_t version = 0;
  /// Whether readers of `now` will never ask for a value made for this one again: it is an
  /// older version of the same run, or of another run (a follower that took a new primary's).
  bool superseded_by(const cache_version& now) const { return epoch != now.epoch || version < now.version; }
};

template <class Value, std::size_t Sets, std::size_t Ways = 8>
class etag_cache {
 public:
  static constexpr std::size_t slot_count = Sets * Ways;

  struct entry {
    std::string etag;
    cache_version made_for;
    std::shared_ptr<const Value> value;  // empty while claimed: another reader is making it; shared
                                         // by the entries of versions whose page is the same
    std::size_t bytes = 0;       // the value's share of the budget
    std::size_t slot = 0;
    mutable std::atomic<std::uint64_t> used{0};  // the cache's miss count when last read
  };
  using entry_ptr = std::shared_ptr<const entry>;

  explicit etag_cache(std::size_t budget_bytes) : budget_(budget_bytes) {}

  /// The value for `etag` (of a snapshot `made_for`), made by `make` (returning it and its
  /// size, or nothing) on a miss; nullptr when another reader is making it, over the budget,
  /// or when `make` could not.
  template <class Make>
  entry_ptr get(std::string_view etag, cache_version made_for, Make&& make) {
    auto found = find_or_claim(etag, made_for);
    if (!found.claim) return std::move(found.hit);
    std::optional<std::pair<Value, std::size_t>> value;
    try {
      value = make();
    } catch (...) {
      release(std::move(found.claim));  // or its slot stays claimed for good
      throw;
    }
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
  lookup find_or_claim(std::string_view etag, cache_version made_for) {
    auto hash = std::hash<std::string_view>{}(etag);
    auto first = hash % Sets * Ways;
    // The hashes in the set say which slot may hold it: one pointer is loaded, not Ways.
    for (auto s = first; s < first + Ways; ++s) {
      if (hashes_[s].load(std::memory_order_acquire) != hash) continue;
      auto cached = slots_[s].load(std::memory_order_acquire);
      if (!cached || cached->etag != etag) continue;
      if (!cached->value) {
        deferred.add();
        return {};
      }
      auto now = misses_.load(std::memory_order_relaxed);
      if (cached->used.load(std::memory_order_relaxed) != now) cached->used.store(now, std::memory_order_relaxed);
      hits.add();
      return {std::move(cached), nullptr};
    }
    auto now = misses_.fetch_add(1, std::memory_order_relaxed) + 1;
    bool over = held_.load(std::memory_order_relaxed) >= budget_ && !drop_superseded(made_for);
    // The slot to take, and what it held when chosen: a superseded value, else an empty slot,
    // else the least recently read value (over the budget: only a cold one). A slot being
    // filled is never taken.
    std::size_t victim = slot_count;
    entry_ptr victim_held;
    bool empty_seen = false;
    for (auto s = first; s < first + Ways; ++s) {
      auto held = slots_[s].load(std::memory_order_acquire);
      if (!held) {
        if (over || empty_seen) continue;
        empty_seen = true;
        victim = s;
        victim_held = nullptr;
        continue;
      }
      if (!held->value) continue;
      if (held->made_for.superseded_by(made_for)) {
        victim = s;
        victim_held = std::move(held);
        break;
      }
      if (empty_seen) continue;
      auto used = held->used.load(std::memory_order_relaxed);
      if (over && now - used <= slot_count) continue;
      if (victim == slot_count || used < victim_held->used.load(std::memory_order_relaxed)) {
        victim = s;
        victim_held = std::move(held);
      }
    }
    if (victim == slot_count) {
      (over ? over_budget : deferred).add();
      return {};
    }
    // Claim the slot for this ETag; whoever loses the race answers the page as rendered.
    entry_ptr claim{new entry{std::string{etag}, made_for, nullptr, 0, victim, now}};
    auto expected = victim_held;
    if (!slots_[victim].compare_exchange_strong(expected, claim, std::memory_order_acq_rel)) {
      deferred.add();
      return {};
    }
    hashes_[victim].store(hash, std::memory_order_release);
    if (victim_held) held_.fetch_sub(victim_held->bytes, std::memory_order_relaxed);
    return {nullptr, std::move(claim)};
  }
  /// Caches the value made for a claim (unless another ETag took its slot meanwhile).
  entry_ptr fill(entry_ptr claim, Value value, std::size_t bytes) {
    made.add();
    return put(std::move(claim), std::make_shared<const Value>(std::move(value)), bytes);
  }
  /// A value made for an earlier version's page, and its share of the budget.
  struct earlier_value {
    std::shared_ptr<const Value> value;
    std::size_t bytes = 0;
    explicit operator bool() const { return value != nullptr; }
  };
  /// Caches for a claim the value made for an earlier version's page of the same content.
  entry_ptr fill_reused(entry_ptr claim, earlier_value earlier) {
    reused.add();
    return put(std::move(claim), std::move(earlier.value), earlier.bytes);
  }

  /// The value last made at `place` (the request target's hash), when its page was `content`
  /// and an entry or an answer still holds it; empty otherwise.
  earlier_value made_before(std::uint64_t place, const page_content& content) const {
    auto last = pages_[place % slot_count].load(std::memory_order_acquire);
    if (!last || last->place != place || last->content != content) return {};
    return {last->value.lock(), last->bytes};
  }
  /// Remembers that the value of `holder` is the page `content` at `place`, weakly: the value
  /// lives no longer than an entry (of any version that took it) or an answer keeps it.
  void remember(std::uint64_t place, page_content content, const entry_ptr& holder) {
    pages_[place % slot_count].store(
        std::make_shared<const made_page>(made_page{place, std::move(content), holder->value, holder->bytes}),
        std::memory_order_release);
  }
  /// Gives a claim up without a value: the next reader of its ETag claims it again.
  void release(entry_ptr claim) {
    auto slot = claim->slot;
    slots_[slot].compare_exchange_strong(claim, entry_ptr{}, std::memory_order_acq_rel);
  }

  /// Bytes of the values in the slots (answers being written may hold older ones a while).
  std::size_t held_bytes() const { return held_.load(std::memory_order_relaxed); }

  telemetry::counter hits;
  telemetry::counter made;
  telemetry::counter reused;       // a newer version's page took the value of an older one's
  telemetry::counter deferred;     // answered as rendered while another reader made the value
  telemetry::counter over_budget;  // answered as rendered: the budget was spent

 private:
  /// Empties every slot whose value `made_for` supersedes, wherever its set: a new version's
  /// pages do not land in the sets of the old one's. Whether that brought the values under the
  /// budget. Only a miss over the budget pays for the walk.
  bool drop_superseded(const cache_version& made_for) {
    for (auto& slot : slots_) {
      auto held = slot.load(std::memory_order_acquire);
      if (!held || !held->value || !held->made_for.superseded_by(made_for)) continue;
      if (slot.compare_exchange_strong(held, entry_ptr{}, std::memory_order_acq_rel))
        held_.fetch_sub(held->bytes, std::memory_order_relaxed);
    }
    return held_.load(std::memory_order_relaxed) < budget_;
  }

  entry_ptr put(entry_ptr claim, std::shared_ptr<const Value> value, std::size_t bytes) {
    entry_ptr fresh{new entry{claim->etag, claim->made_for, std::move(value), bytes, claim->slot, claim->used.load(std::memory_order_relaxed)}};
    if (slots_[claim->slot].compare_exchange_strong(claim, fresh, std::memory_order_acq_rel))
      held_.fetch_add(bytes, std::memory_order_relaxed);
    return fresh;
  }

  struct made_page {
    std::uint64_t place;
    page_content content;
    std::weak_ptr<const Value> value;
    std::size_t bytes;
  };

  std::array<std::atomic<entry_ptr>, slot_count> slots_{};
  std::array<std::atomic<std::shared_ptr<const made_page>>, slot_count> pages_{};  // by place
  std::array<std::atomic<std::size_t>, slot_count> hashes_{};  // of each slot's ETag: a hint, checked
  std::atomic<std::uint64_t> misses_{0};
  std::atomic<std::size_t> held_{0};
  std::size_t budget_;
};

}  // namespace z402::routes
