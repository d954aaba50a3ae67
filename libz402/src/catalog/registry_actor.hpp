#pragma once
// REGISTRY: the only place that knows the global totals. It accepts or refuses each
// provider's new item set against the budgets (4,096 items, 16 MiB by default), keeps every
// item in listing order, and publishes coalesced immutable snapshots.
//
// Two rhythms: a change of content (a declaration, a delisting, an eviction) is
// published within the publication interval (1 ms) and answered once visible; a change that
// only moves counts or lastSeen (settles, heartbeats) is answered at once and published at most
// once per counts interval (250 ms), with the first after a quiet spell published at once. Each
// new version makes readers' cached pages, gzip bodies and ETags stale, so a stream of settles
// every millisecond no longer turns every read into a miss.
//
// A content publication does not carry the counts held back: it shows the items as last
// published, with only the changed content new (`shown`), so it leaves the pages of unchanged
// items as they were and their cached bytes reusable. The payments saved with a version are
// exactly those of the counts it shows (payment_file.hpp): a content publication shows no new
// count and carries no payment. A content change that brings payments of its own (a settle
// that lists a new payment-only item) is published whole, counts and all.
#include "z402/catalog/actors.hpp"
#include "catalog/coalescer.hpp"
#include "z402/catalog/engine_context.hpp"

#include <caf/all.hpp>

#include <chrono>
#include <string>
#include <unordered_map>
#include <vector>

namespace z402::catalog {

struct registry_state {
  engine_context ctx;
  std::shared_ptr<snapshot_store> store;  // shared with the engine: it outlives neither
  persistence_actor persistence;  // may be null: nothing is written

  listing_items items;  // every commit applied, sorted by seq: listing order
  std::size_t bytes = 0;  // of `items`: what the budgets are held to
  // What the next content publication shows: `items`, but for what a commit changed only in
  // counts or lastSeen, which stays as last published. The same seqs in the same order as
  // `items`. A publication shares its chunks.
  listing_items shown;
  std::size_t shown_bytes = 0;
  std::unordered_map<std::string, std::size_t> items_of;  // provider -> how many it lists
  std::uint64_t version = 0;
  bool content_changed = true;  // since the last publication: items added, removed or rewritten
  bool counts_held = false;     // `shown` is behind `items` in counts or lastSeen
  bool whole_due = false;       // a content change brought payments: publish `items` as it is
  std::shared_ptr<const content_indexes> indexes;
  coalescer publications;        // content: at most one snapshot per publication interval
  coalescer count_publications;  // counts and lastSeen only: at most one per counts interval
  std::vector<caf::response_promise> waiting;  // commits not yet visible, answered empty once they are
  std::vector<payment_record> payments;  // counted since the last whole publication: they go with the next
  std::vector<publication_watcher> watchers;  // get every publication (the FEED)

  static inline const char* name = "z402.registry";
};

/// Version 1 (or, for a follower resuming, the version the file held): the catalog loaded from
/// disk, in listing order. The engine publishes it into the
/// store before any actor runs, so a server's first read already sees it (a registry that
/// published it when first scheduled left a moment of empty catalog, with a valid ETag).
snapshot_ptr first_snapshot(const item_list& loaded, std::uint64_t epoch, std::int64_t now_ms, std::uint64_t version = 1);

/// Starts from the snapshot in `store` (first_snapshot) and publishes every change after it.
registry_actor::behavior_type registry(registry_actor::stateful_pointer<registry_state> self, engine_context ctx,
                                       std::shared_ptr<snapshot_store> store, persistence_actor persistence,
                                       std::chrono::milliseconds publish_interval,
                                       std::chrono::milliseconds counts_interval);

}  // namespace z402::catalog
