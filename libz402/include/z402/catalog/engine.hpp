#pragma once
// The catalog engine, as the server or an embedding rail node starts it in its own
// caf::actor_system (whose config went through register_types): REGISTRY, PERSISTENCE,
// SETTLE, and one PROVIDER per provider, spawned on demand. Every method may be called from
// any thread.
#include "z402/catalog/actors.hpp"
#include "z402/catalog/catalog_file.hpp"
#include "z402/catalog/engine_context.hpp"
#include "z402/catalog/provider_directory.hpp"
#include "z402/catalog/settle_window.hpp"
#include "z402/catalog/signed_catalog.hpp"
#include "z402/config/signing_files.hpp"
#include "z402/config/listen_address.hpp"

#include <boost/json/value.hpp>
#include <caf/all.hpp>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace z402::catalog {

struct engine_options {
  config::catalog_limits limits;
  config::rail_terms terms = config::default_rail_terms();
  bool allow_http_resources = false;
  std::shared_ptr<const wall_clock> clock = std::make_shared<system_wall_clock>();
  std::filesystem::path catalog_file;  // empty: nothing is written
  /// The payments counted, so a repeat is not counted again after a restart (payment_file.hpp);
  /// read here at start. Empty: they are remembered in memory only.
  std::filesystem::path payments_file;
  std::chrono::milliseconds publish_interval{1};  // content changes are visible within this
  std::chrono::milliseconds counts_interval{250};  // counts and lastSeen are visible within this
  std::chrono::milliseconds persist_interval{1000};
  /// fsync blocks, so PERSISTENCE runs on a thread of its own; deterministic tests turn it off.
  bool persistence_thread = true;
  std::vector<item_record> initial;    // loaded from disk
  /// A follower's: the primary's (epoch, version) that `initial` is, as its catalog file says
  /// (0: none, or not resumable). Published under them and subscribed with, so a restart within
  /// the FEED's window resumes with the changes since, not a copy.
  std::uint64_t initial_epoch = 0;
  std::uint64_t initial_version = 0;
  /// The UTC day `initial`'s items were rendered for, as the catalog file says (rendered_day_of):
  /// a follower that resumes renders them for it, not for its own clock's day, so that it serves
  /// the bytes its primary served under that version.
  std::int64_t initial_day = 0;
  /// A follower of the primary at this address: its catalog is the primary's, kept by
  /// a REPLICA; no PROVIDER runs and nothing is written here. Empty: this node writes.
  std::optional<config::listen_address> follow;
  /// A follower's: the primary's keyring file text, each time it arrives (on the REPLICA's
  /// thread). The server writes it to its own keyring file and reloads it.
  std::function<void(const std::string&)> on_keyring;
  /// A primary's FEED keeps this many recent versions, so a follower that lost its link resumes
  /// from the version it holds (about 4 s at the write load of the benchmark suite).
  std::size_t feed_window = 64;
  /// Settles sent one at a time (settle with a body's text, a tree or a settlement) that may
  /// await their answer at once; the call that would pass it waits until one is answered (0 is
  /// taken as 1). Without a bound, a rail node that reports faster than the catalog counts
  /// queued them all: a million settles held 760-910 MB, and the catalog's thread, reading
  /// that cold memory, fell further behind (z402-bench-engine). So call settle from a
  /// thread of your own, not from an actor of the system the engine runs in, which could wait
  /// for itself. The HTTP layer's batches are not counted here: its connections bound them.
  std::size_t max_settles_in_flight = 4096;
  telemetry::logger log;               // where the actors' lines go (e.g. "catalog not saved")
  /// A primary's signed catalog (docs/trust.md): its files, and the keys and last sequence read
  /// from them at start. None: the catalog is not signed here (a follower serves its primary's).
  struct signing_setup {
    config::signing_files files;
    config::signing_keys keys;
    std::uint64_t sequence = 0;
    /// Between publications of a changing catalog; notes are re-signed every 5 minutes.
    std::chrono::milliseconds interval{10'000};
  };
  std::optional<signing_setup> signing;
};

class engine {
 public:
  engine(caf::actor_system& sys, engine_options options);
  ~engine();
  engine(const engine&) = delete;
  engine& operator=(const engine&) = delete;

  /// Readers load snapshots here without waiting for any actor.
  const snapshot_store& snapshots() const { return *store_; }

  /// Who receives payments at which payTo (docs/contract.md §3: the provider is the one whose payTo
  /// is paymentRequirements.payTo). Replaces the previous map.
  void set_payees(payee_map payees);

  /// The signed catalog's newest publication (null: not signed, or not yet).
  signed_publication_ptr signed_catalog() const { return signed_->load(); }
  /// Sends a validated declaration to its PROVIDER (at a follower, to the primary's); `done`
  /// gets the outcome on an actor thread. One whose digest repeats the provider's last
  /// declaration (a heartbeat) only moves its items' lastSeen on.
  void declare(const std::string& provider, declare_command cmd, write_completion done);

  /// Removes the provider's own items that `cmd` names (or all of them); `done` gets ok with
  /// the number removed. Another provider's items are out of reach: only this PROVIDER is asked.
  void delist(const std::string& provider, delist_command cmd, write_completion done);

  /// One successful settle, as its x402 body {"x402Version","paymentPayload","paymentRequirements"}
  /// (v1 or v2). `done` gets the catalog outcome once: rejected at once (on this thread) when
  /// the body names no payee or resource, otherwise on an actor thread.
  void settle(const boost::json::value& body, settle_completion done);

  /// The same for the body's JSON text (rules::parse_settlement): read in one strict pass that
  /// builds no tree, where a tree is written as text first; text that is not one JSON object,
  /// or has a duplicate key, is rejected at once (invalid_body) like a body that names no payee.
  void settle(std::string_view body_json, settle_completion done);

  /// The same for a settlement already read (rules::parse_settlement).
  void settle(rules::settlement event, settle_completion done);

  /// Settles sent one at a time that await their answer (at most max_settles_in_flight).
  std::size_t settles_in_flight() const { return settle_window_->held(); }

  /// Several derived settlements in one message (answers[i] answers events[i]): a caller that
  /// collects events, like the HTTP layer within one turn of its event loop, saves a mailbox
  /// hand-off and a wake-up per event.
  void settle(settle_batch events, settle_answers answers);

  /// Publishes every change held back (counts and lastSeen wait up to `counts_interval`),
  /// writes the catalog file now and waits (at most 10 s) for the answer: a clean stop, or a
  /// reader that must see every count acknowledged so far. The version on disk (the published
  /// one with no catalog file), or why not: the save's error (io_error, with the system's
  /// reason), or unavailable when the catalog did not answer in time.
  expected<std::uint64_t> flush();

  /// A primary's: the keyring file's text (provider records and settle keys, hashes only), for
  /// the FEED to send its followers; at start and whenever the file changed.
  void set_keyring(std::string text);

  /// The provider was removed: its items leave the catalog.
  void forget_provider(const std::string& provider);

  const engine_context& context() const { return ctx_; }

  /// Whether this node follows a primary (engine_options::follow): its writes are forwarded to
  /// the primary, which answers them.
  bool follower() const { return static_cast<bool>(replica_); }

  /// The FEED of a primary, spawned on the first call: publish it with
  /// catalog::publish_feed. Its epoch is this run's (engine_context::epoch).
  feed_remote_actor feed();

  /// Stops every actor; later writes answer "unavailable".
  void stop();
  /// After stop(): blocks until every actor of this engine has ended, so whatever they still
  /// held (a write's or a settle's completion) has been answered or released. Not from an actor
  /// of the engine's system, nor under a deterministic scheduler: it waits for their threads.
  void await_stopped();

 private:
  // A derived body, or why none could be derived: answered at once then.
  void settle(expected<rules::settlement> event, settle_completion done);

  engine_context ctx_;
  // Shared with the actors that publish into it (REGISTRY, REPLICA): one that runs, or first
  // starts, after the engine is gone still publishes into a live store.
  std::shared_ptr<snapshot_store> store_ = std::make_shared<snapshot_store>();
  std::shared_ptr<signed_store> signed_ = std::make_shared<signed_store>();
  persistence_actor persistence_;
  signer_actor signer_;    // a primary's that signs; null otherwise
  registry_actor registry_;
  settle_actor settle_;
  std::shared_ptr<provider_directory> directory_;
  replica_actor replica_;  // a follower's; null on a primary
  feed_actor feed_;        // a primary's, once asked for
  writes_actor writes_;    // with the FEED: the writes its followers forward
  std::size_t feed_window_ = 0;
  std::shared_ptr<settle_window> settle_window_;
  caf::actor_system& sys_;
  std::vector<caf::actor> stopping_;  // the actors stop() sent an exit, for await_stopped
};

/// The command for checked items (rules::validate_declaration): each item's tree becomes its
/// content here, on the caller's thread, and is freed. `digest` identifies the body, or is empty.
declare_command make_declare_command(std::vector<rules::declared_item> items, std::string digest);

}  // namespace z402::catalog
