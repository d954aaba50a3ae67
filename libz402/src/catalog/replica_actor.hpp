#pragma once
// REPLICA (on a follower): keeps this node's catalog equal to the primary's. It reaches
// the primary's FEED through its link (cluster_link.hpp), subscribes with the (epoch, version) it
// holds, and applies the copy or the changes it is sent: the same items under the same version
// numbers, published through the node's snapshot_store like the REGISTRY's and saved by its
// PERSISTENCE, so reads, ETags and the catalog file match the primary's. When the FEED goes
// down it keeps serving what it holds, marks the primary unreachable and reaches it again with
// backoff (100 ms doubling to 5 s); changes that do not continue from the version it holds
// (a publication lost with the link) are asked for again from that version.
//
// Writes at the follower were authenticated and checked here; the REPLICA forwards them to the
// primary's FEED (which delegates them to WRITES) and answers with the primary's outcome. While
// the link is down, when it goes down before the primary answered, or when the primary does not
// answer within 5 s, they are answered unavailable, and the client tries again: a settle sent twice still counts once. The primary's
// keyring arrives with the feed and goes to `on_keyring` (the server writes it to its own
// keyring file, so its authentication matches the primary's and a promoted follower has it).
#include "catalog/forward_deadline.hpp"
#include "z402/catalog/actors.hpp"
#include "z402/catalog/engine_context.hpp"
#include "z402/catalog/signed_catalog.hpp"
#include "z402/config/listen_address.hpp"

#include <caf/all.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace z402::catalog {

/// Why a follower could not reach its primary, since it last could: each reason is logged the
/// first time only, not per attempt (at the longest backoff a primary away for a day is about
/// 17,000 attempts), and at most `max_kept` distinct ones are kept. The reasons are CAF's
/// rendering of the connect error and our own fixed texts; none seen here carries a per-attempt
/// detail, but nothing promises that, and one that did would otherwise log every attempt and keep
/// every reason for as long as the primary is away.
class unreachable_reasons {
 public:
  static constexpr std::size_t max_kept = 16;
  enum class news {
    first,     // not heard since the link: log it
    repeated,  // heard before: said already
    one_more,  // the first past max_kept: log it, and that later new ones are not logged
    unsaid,    // past that: not logged, not kept
  };
  news heard(const std::string& reason);
  /// The link is made: every reason may be said again when it goes down.
  void linked();
  std::size_t kept() const { return said_.size(); }

 private:
  std::vector<std::string> said_;
  bool past_bound_ = false;
};

struct replica_state {
  engine_context ctx;
  std::shared_ptr<snapshot_store> store;  // shared with the engine: it outlives neither
  persistence_actor persistence;
  config::listen_address primary;
  std::uint64_t epoch = 0;    // of the primary's run this catalog came from; 0: none yet
  std::uint64_t version = 0;  // the primary's version held; 0: none yet
  listing_items items;        // listing order
  std::shared_ptr<const content_indexes> indexes;
  feed_remote_actor feed;
  std::chrono::milliseconds backoff{0};
  /// Why attempts to reach the FEED failed since the link was last made, each logged once.
  unreachable_reasons failures_said;
  std::function<void(const std::string&)> on_keyring;
  std::shared_ptr<signed_store> signed_catalog;  // the primary's, served here unchanged
  std::optional<error> checks_differ;  // why writes are refused: its checks differ from the primary's; none: they agree
  /// The body digest of each provider's last declaration the primary took through this node: a
  /// declaration with the same one is first sent as that digest alone (a heartbeat). One per
  /// provider the keyring names.
  std::unordered_map<std::string, std::string> declared_digests;
  /// The primary's steady clock, from the feed's messages on this link: the deadlines of the
  /// declarations and delistings it forwards (forward_deadline.hpp).
  primary_clock primary_time;
  // Forwarded settles and heartbeats the primary has not answered, by ticket: how to refuse each
  // (with a reason) when the link goes down first. Declarations and delistings are not here: they
  // are answered at their timeout, once the primary refuses them (forward_deadline.hpp).
  std::uint64_t next_ticket = 1;
  std::unordered_map<std::uint64_t, std::function<void(const error&)>> in_flight;

  static inline const char* name = "z402.replica";
};

/// Longest a forwarded write waits for the primary's answer before it is answered unavailable.
inline constexpr std::chrono::seconds forward_timeout{5};

replica_actor::behavior_type replica(replica_actor::stateful_pointer<replica_state> self, engine_context ctx,
                                     std::shared_ptr<snapshot_store> store, persistence_actor persistence, config::listen_address primary,
                                     std::function<void(const std::string&)> on_keyring, std::shared_ptr<signed_store> signed_catalog);

}  // namespace z402::catalog
