#pragma once
// FEED (on the primary): every publication of the REGISTRY, as the changes a follower
// needs. It keeps the last `window` snapshots (items are shared between versions, so a snapshot
// costs the vector of its pointers), so a follower that reconnects with a version still held gets
// the changes since it; one that holds another epoch (the primary restarted) or a version too old
// gets a copy. Then every publication's changes, as they come. Changes are computed between
// snapshots, not kept per publication: a follower is always sent the difference between what it
// was last sent and the newest version. A follower sent nothing for a second gets an empty
// change, so its "last heard from the primary" bounds how stale what it serves can be.
//
// Each follower is also sent the primary's signed catalog (the SIGNER's publications, looked for
// on every tick), on subscribing and whenever a new one is made, so it serves the same files.
//
// It also sends each follower the primary's keyring (provider records and settle keys, as
// hashes), on subscribing and on every change, so the follower authenticates writes itself; the
// writes it forwards are delegated to WRITES (forwarded_writes_actor.hpp), which answers them.
#include "z402/catalog/actors.hpp"
#include "z402/catalog/engine_context.hpp"
#include "z402/catalog/signed_catalog.hpp"

#include <caf/all.hpp>

#include <chrono>
#include <deque>
#include <vector>

namespace z402::catalog {

inline constexpr std::chrono::seconds feed_heartbeat{1};

/// Changes and copies in flight to one follower at most (back-pressure). Each REPLICA
/// says when it applied one; a follower with none left is sent nothing more, so its mailbox
/// stays bounded however slow it is, and once it has applied one it is sent everything since
/// as one change (the difference from what it was last sent, with the payments it is owed).
inline constexpr std::size_t feed_credit = 8;

/// The changes from `from` to `to`: the items of `to` that `from` does not hold as they are
/// (new, or a new version with the same seq) and the seqs of `from` that `to` no longer lists.
catalog_delta delta_between(const snapshot& from, const snapshot& to, std::uint64_t epoch);

/// The payments first counted in the versions of `recent` after `from` up to `to`, in order.
std::vector<payment_record> payments_between(const std::deque<snapshot_ptr>& recent, std::uint64_t from, std::uint64_t to);

struct feed_state {
  struct follower {
    replica_feed_actor replica;
    snapshot_ptr sent;  // the version it was last sent
    std::size_t unacknowledged = 0;     // sent and not yet applied (at most feed_credit)
    std::vector<payment_record> owed;   // first counted in versions not yet sent to it
    bool sent_this_second = false;
  };

  engine_context ctx;
  std::uint64_t epoch = 0;
  std::size_t window = 0;
  std::deque<snapshot_ptr> recent;  // oldest first; the newest is last
  std::vector<follower> followers;
  std::string keyring;  // the keyring file's text; empty until the engine sends it
  std::shared_ptr<const signed_store> signed_catalog;  // the SIGNER's publications (null: none)
  signed_publication_ptr signed_sent;                 // the last one sent to every follower
  writes_actor writes;

  static inline const char* name = "z402.feed";
};

feed_actor::behavior_type feed(feed_actor::stateful_pointer<feed_state> self, engine_context ctx, snapshot_ptr current,
                               std::uint64_t epoch, std::size_t window, writes_actor writes,
                               std::shared_ptr<const signed_store> signed_catalog);

}  // namespace z402::catalog
