#pragma once
// REGISTRY: the only place that knows the global totals. It accepts or refuses each
// provider's new item set against the budgets (4,096 items, 16 MiB by default), keeps every
// item in listing order, and publishes coalesced immutable snapshots.
//
// Two rhythms (issue 13): a change of content (a declaration, a delisting, an eviction) is
// published within the publication interval (1 ms) and answered once visible; a change that
// only moves counts or lastSeen (settles, heartbeats) is answered at once and published at most
// once per counts interval (250 ms), with the first after a quiet spell published at once. Each
// new version makes readers' cached pages, gzip bodies and ETags stale, so a stream of settles
// every millisecond no longer turns every read into a miss.
#include "z402/catalog/actors.hpp"
#include "z402/catalog/coalescer.hpp"
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

  listing_items items;  // sorted by seq: listing order; a publication shares its chunks
  std::unordered_map<std::string, std::size_t> items_of;  // provider -> how many it lists
  std::size_t bytes = 0;
  std::uint64_t version = 0;
  bool content_changed = true;  // since the last publication: items added, removed or rewritten
  bool unpublished = false;     // any change since the last publication
  std::shared_ptr<const content_indexes> indexes;
  coalescer publications;        // content: at most one snapshot per publication interval
  coalescer count_publications;  // counts and lastSeen only: at most one per counts interval
  std::vector<caf::typed_response_promise<bool>> waiting;  // commits not yet visible
  std::vector<payment_record> payments;  // counted since the last publication: they go with it
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
