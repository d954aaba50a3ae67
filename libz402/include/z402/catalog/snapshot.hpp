#pragma once
// The catalog as readers see it: an immutable list of immutable items, swapped atomically.
// One writer (the registry actor) publishes; any thread loads without waiting for it.
#include "z402/catalog/item.hpp"
#include "z402/catalog/listing_items.hpp"
#include "z402/catalog/payment_ledger.hpp"
#include "z402/search/ranking.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace z402::catalog {

/// Items by filter value: for each "field\x1fvalue" (type, payTo, scheme, network, asset,
/// extensions), the positions of the items that match, ascending.
class filter_index {
 public:
  explicit filter_index(const listing_items& items);
  /// nullptr when no item matches.
  const std::vector<std::uint32_t>* positions(std::string_view field, std::string_view value) const;
  /// The positions (ascending) of the items with an accepts entry of `asset` (any asset when
  /// empty) whose amount is at most `max_amount` atomic units: a binary search in the items
  /// sorted by their cheapest entry, then the matches in listing order.
  std::vector<std::uint32_t> priced_at_most(std::string_view asset, std::uint64_t max_amount) const;

 private:
  std::unordered_map<std::string, std::vector<std::uint32_t>> positions_;
  std::unordered_map<std::string, std::vector<std::pair<std::uint64_t, std::uint32_t>>> by_price_;  // by asset
};

/// Items by identity (type, canonical resource, method or toolName): the listings GET
/// /discovery/resource and MCP's get_resource resolve, in listing order. An open-addressing
/// table of (a part of the item's identity hash, its position), built in one pass from the hash
/// each item version took once: a scan of every item's identity was a quarter of the server's
/// time at 65,536 items under changed declarations and their probes, and a sorted table of
/// hashes taken per version half of it.
class identity_index {
 public:
  explicit identity_index(const listing_items& items);
  /// The positions (ascending) of the items with this identity.
  std::vector<std::size_t> positions(const listing_items& items, std::string_view type, std::string_view resource,
                                     std::string_view selector) const;

 private:
  std::vector<std::uint64_t> slots_;  // tag << 32 | position + 1; 0: empty. A power of two, at least twice the items
};

/// The items by their paid calls in the 30 days their JSON shows (sort=calls30d, minCalls30d):
/// most paid first, ties in listing order. Counts change without the content, so this is one
/// snapshot's, built by the first read that asks.
class usage_order {
 public:
  explicit usage_order(const listing_items& items);
  /// Positions, most paid first.
  const std::vector<std::uint32_t>& by_calls() const { return order_; }
  /// The 30 days' calls of the item at `position`.
  std::uint64_t calls30d(std::uint32_t position) const { return totals_[position]; }
  /// How many items have at least `min` calls: the first that many of by_calls().
  std::size_t at_least(std::uint64_t min) const;

 private:
  std::vector<std::uint32_t> order_;
  std::vector<std::uint64_t> totals_;  // by position
};

/// The paid calls of the last 30 days of each item, by position, as its JSON shows them.
std::vector<std::uint64_t> calls30d_of(const listing_items& items);

/// A snapshot's usage order and search prior, each made by the first read that asks.
struct lazy_usage {
  std::once_flag order_built, prior_built;
  std::unique_ptr<const usage_order> order;
  search::usage_prior prior;
};

struct snapshot;

/// The indexes of one content version: built by the first read that needs each (a reader,
/// never a writer), then shared by every snapshot with the same content, since count and
/// lastSeen updates keep each item's content and position. The search index of a version is
/// made from an earlier version's when one is built (search::index::updated): a change costs
/// that first search in proportion to what changed, not to the catalog.
class content_indexes {
 public:
  /// The indexes of the content version after `previous`'s (null: the first). Until its own
  /// search index is made it keeps `previous`, or the snapshot `previous` was to be made from,
  /// whichever has a built search index (never a chain): that index and its documents. Not one
  /// more than `max_versions_behind` content versions old: with no search for that long, the
  /// next one builds whole rather than the catalog keeping the old contents of every change.
  static std::shared_ptr<const content_indexes> after(const std::shared_ptr<const snapshot>& previous);
  static constexpr std::uint64_t max_versions_behind = 64;

  const search::index& search(const listing_items& items) const;

  const filter_index& filters(const listing_items& items) const {
    std::call_once(filters_built_, [&] { filters_ = std::make_unique<filter_index>(items); });
    return *filters_;
  }

  const identity_index& identities(const listing_items& items) const {
    std::call_once(identities_built_, [&] { identities_ = std::make_unique<identity_index>(items); });
    return *identities_;
  }

 private:
  /// The search index once made, else null.
  const search::index* built_search() const { return search_ready_.load(std::memory_order_acquire) ? search_.get() : nullptr; }

  mutable std::once_flag search_built_, filters_built_, identities_built_;
  mutable std::unique_ptr<search::index> search_;
  mutable std::atomic<bool> search_ready_{false};
  mutable std::unique_ptr<filter_index> filters_;
  mutable std::unique_ptr<identity_index> identities_;
  // The snapshot whose built search index this one's is made from (its items hold the index's
  // documents); let go once it is made.
  mutable std::atomic<std::shared_ptr<const snapshot>> base_;
  std::uint64_t content_version_ = 0;  // content versions made before this one
  std::uint64_t base_version_ = 0;     // base_'s content version (set with it, never changed)
};

struct snapshot {
  /// This run of the catalog (drawn at each start of a primary or standalone node; a follower
  /// serves its primary's): (epoch, version) names one catalog state on every node, and versions
  /// start again with each run, so ETags carry both.
  std::uint64_t epoch = 0;
  std::uint64_t version = 0;
  listing_items items;      // listing order
  std::size_t bytes = 0;    // sum of the items' serialised sizes
  std::size_t providers = 0;
  std::int64_t published_ms = 0;  // wall clock, Unix ms
  std::shared_ptr<const content_indexes> indexes = std::make_shared<const content_indexes>();
  /// The payments first counted in this version (null: none): PERSISTENCE appends them to the
  /// payments file before it writes this version's counts (payment_file.hpp).
  std::shared_ptr<const std::vector<payment_record>> payments;

  const search::index& search_index_of() const { return indexes->search(items); }
  const filter_index& filter_index_of() const { return indexes->filters(items); }
  const identity_index& identity_index_of() const { return indexes->identities(items); }
  std::shared_ptr<lazy_usage> usage = std::make_shared<lazy_usage>();

  const usage_order& usage_order_of() const {
    std::call_once(usage->order_built, [&] { usage->order = std::make_unique<const usage_order>(items); });
    return *usage->order;
  }
  /// What paid calls multiply search relevance by (search::usage_prior), per item.
  const search::usage_prior& usage_prior_of() const {
    std::call_once(usage->prior_built, [&] { usage->prior = search::usage_prior::of(calls30d_of(items)); });
    return usage->prior;
  }
};

using snapshot_ptr = std::shared_ptr<const snapshot>;

/// Where the item with `seq` is, or would go, in `items` (listing order, which is seq order).
listing_items::iterator position_of(const listing_items& items, std::uint64_t seq);
/// Whether `at` (from position_of) holds the item with `seq`.
inline bool holds(const listing_items& items, listing_items::iterator at, std::uint64_t seq) {
  return at != items.end() && (*at)->record().seq == seq;
}

/// Version `version` of run `epoch` of the catalog: `items` in listing order, `bytes` their serialised size.
/// `indexes` are the previous version's when the content did not change (null: built anew);
/// `payments` those first counted in this version.
snapshot_ptr make_snapshot(std::uint64_t epoch, std::uint64_t version, listing_items items, std::size_t bytes, std::size_t providers,
                           std::int64_t now_ms, std::shared_ptr<const content_indexes> indexes = nullptr,
                           std::shared_ptr<const std::vector<payment_record>> payments = nullptr);

/// The UTC day a snapshot's items render as they are for: the latest any of them was rendered for,
/// since an item whose paidCallsToday and 30 days read the same on a later day keeps its
/// rendering (the day it was published when it holds none). None when some item renders
/// otherwise for that day: a primary's clock that went back across midnight renders new counts
/// for the earlier day. A follower's is its primary's day, whatever its own clock says: what its
/// catalog file records (0 for none), so that a restart renders its items as the primary did for
/// that version, or takes a copy.
std::optional<std::int64_t> rendered_day_of(const snapshot& snap);

class snapshot_store {
 public:
  snapshot_store() : current_(std::make_shared<const snapshot>()) {}

  /// Writer side: the new snapshot becomes visible to every later load.
  void publish(snapshot_ptr next) {
    current_.store(std::move(next), std::memory_order_release);
    epoch_.fetch_add(1, std::memory_order_acq_rel);
  }

  snapshot_ptr load() const { return current_.load(std::memory_order_acquire); }

  /// Hot path: a thread-local copy refreshed only when the epoch moved, which avoids the
  /// lock inside std::atomic<shared_ptr> on every request. The pointer is stored before the
  /// epoch is bumped, so a reader that sees the new epoch loads the new pointer.
  snapshot_ptr load_cached() const {
    thread_local const snapshot_store* owner = nullptr;
    thread_local std::uint64_t seen = 0;
    thread_local snapshot_ptr cached;
    auto epoch = epoch_.load(std::memory_order_acquire);
    if (owner != this || seen != epoch || !cached) {
      cached = load();
      seen = epoch;
      owner = this;
    }
    return cached;
  }

 private:
  std::atomic<snapshot_ptr> current_;
  std::atomic<std::uint64_t> epoch_{1};
};

}  // namespace z402::catalog
