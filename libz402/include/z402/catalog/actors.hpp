#pragma once
// The catalog's actors and every message each one takes, as typed interfaces: a message an
// actor does not take, or a reply of the wrong type, is a compile error, not a silent drop at
// run time. One line per message says who sends it and what it means; the types are in
// messages.hpp, and those that can cross machines are serialisable (serialization.hpp).
#include "z402/catalog/messages.hpp"
#include "z402/catalog/serialization.hpp"

#include <caf/all.hpp>

#include <cstdint>
#include <string>

namespace z402::catalog {

namespace atom {
using declare = caf::atom_constant<caf::atom("declare")>;
using repeat = caf::atom_constant<caf::atom("repeat")>;
using delist = caf::atom_constant<caf::atom("delist")>;
using commit = caf::atom_constant<caf::atom("commit")>;
using settle = caf::atom_constant<caf::atom("settle")>;
using settled = caf::atom_constant<caf::atom("settled")>;
using providers = caf::atom_constant<caf::atom("providers")>;
using tick = caf::atom_constant<caf::atom("tick")>;
using publish = caf::atom_constant<caf::atom("publish")>;
using counts = caf::atom_constant<caf::atom("counts")>;
using persist = caf::atom_constant<caf::atom("persist")>;
using write = caf::atom_constant<caf::atom("write")>;
using retry = caf::atom_constant<caf::atom("retry")>;
using flush = caf::atom_constant<caf::atom("flush")>;
using forget = caf::atom_constant<caf::atom("forget")>;
using watch = caf::atom_constant<caf::atom("watch")>;
using published = caf::atom_constant<caf::atom("published")>;
using subscribe = caf::atom_constant<caf::atom("subscribe")>;
using copy = caf::atom_constant<caf::atom("copy")>;
using delta = caf::atom_constant<caf::atom("delta")>;
using connected = caf::atom_constant<caf::atom("connected")>;
using connect = caf::atom_constant<caf::atom("connect")>;
using keyring = caf::atom_constant<caf::atom("keyring")>;
using signed_catalog = caf::atom_constant<caf::atom("signed")>;
using answered = caf::atom_constant<caf::atom("answered")>;
using applied = caf::atom_constant<caf::atom("applied")>;
using checks = caf::atom_constant<caf::atom("checks")>;
}  // namespace atom

/// PERSISTENCE: writes the newest snapshot to the catalog file (persistence_actor.hpp).
using persistence_actor = caf::typed_actor<
    /// REGISTRY: a newer catalog to write, within the coalescing interval, and the payments it
    /// counted, appended to the payments file before it.
    caf::reacts_to<atom::persist, snapshot_ptr>,
    /// itself: the coalescing interval is over; write what is pending.
    caf::reacts_to<atom::write>,
    /// itself: a failed write is tried again (backoff up to 5 s).
    caf::reacts_to<atom::retry>,
    /// REGISTRY: write now (a clean stop); the version on disk, or the save's error (io_error
    /// on the file, with the system's reason).
    caf::replies_to<atom::flush>::with<std::uint64_t>>;

/// Whoever follows every publication of this process's REGISTRY (the FEED).
using publication_watcher = caf::typed_actor<
    /// REGISTRY: the snapshot just published, every one in order.
    caf::reacts_to<atom::published, snapshot_ptr>>;

/// REPLICA as the primary's FEED sees it: the follower's end of the feed (replica_actor.hpp).
using replica_feed_actor = caf::typed_actor<
    /// FEED: the whole catalog, when the follower holds nothing the feed can continue from.
    caf::reacts_to<atom::copy, catalog_copy>,
    /// FEED: the next publication's changes, from the version the follower holds.
    caf::reacts_to<atom::delta, catalog_delta>,
    /// FEED: the primary's provider records and settle keys (hashes only), as its keyring file
    /// holds them: on subscribing and on every change. The follower authenticates with them.
    caf::reacts_to<atom::keyring, std::string>,
    /// FEED: the primary's signed catalog (signed_catalog.hpp): sequence, expiry, catalog note,
    /// keys note and the bytes, on subscribing and on every publication. Served unchanged.
    caf::reacts_to<atom::signed_catalog, std::uint64_t, std::int64_t, std::string, std::string, std::string>,
    /// FEED: what the primary checks declarations against (checks_of), on subscribing; a
    /// follower whose own differ forwards no writes and says so.
    caf::reacts_to<atom::checks, std::string>>;

/// The writes a follower forwards to its primary: authenticated and checked
/// at the follower, so the rules' CPU stays off the primary; the answer is the primary's.
using forwarded_writes = caf::typed_actor<
    /// REPLICA: (provider, its checked declaration) for that provider's PROVIDER.
    caf::replies_to<atom::declare, std::string, declare_command>::with<write_outcome>,
    /// REPLICA: (provider, body digest) a heartbeat sent as its digest alone: ok when it repeats
    /// the provider's last declaration, not_a_repeat otherwise (the declaration follows).
    caf::replies_to<atom::repeat, std::string, std::string>::with<write_outcome>,
    /// REPLICA: (provider, what to remove) as engine::delist.
    caf::replies_to<atom::delist, std::string, delist_command>::with<write_outcome>,
    /// REPLICA: derived settles for SETTLE; one outcome per event, in order.
    caf::replies_to<atom::settle, settle_batch>::with<settle_outcomes>>;

/// FEED as a follower sees it: the only messages a published FEED takes from another node.
using feed_remote_actor = forwarded_writes::extend<
    /// REPLICA of a follower: (epoch, version) it holds; answered with the changes since that
    /// version when the feed still has it, a copy otherwise, then every publication's changes.
    caf::reacts_to<atom::subscribe, std::uint64_t, std::uint64_t, replica_feed_actor>,
    /// REPLICA: it applied a change or copy (up to this version); the feed's credit for it.
    caf::reacts_to<atom::applied, std::uint64_t>>;

/// FEED: the primary's publications for its followers (feed_actor.hpp); forwarded writes it
/// delegates to WRITES.
using feed_actor = feed_remote_actor::extend<
    /// REGISTRY: a new publication (as publication_watcher).
    caf::reacts_to<atom::published, snapshot_ptr>,
    /// itself: a second has passed; followers that were sent nothing hear from it anyway.
    caf::reacts_to<atom::tick>,
    /// ENGINE: the keyring file's text, at start and whenever it changed.
    caf::reacts_to<atom::keyring, std::string>>;

/// SIGNER: a primary's signed catalog (signer_actor.hpp).
using signer_actor = caf::typed_actor<
    /// itself: a second has passed; it signs the newest snapshot when that is due.
    caf::reacts_to<atom::tick>>;

/// WRITES: a primary's forwarded writes, handed to its PROVIDERs and SETTLE
/// (forwarded_writes_actor.hpp).
using writes_actor = forwarded_writes::extend<
    /// a PROVIDER's completion: (ticket, outcome) of a forwarded write.
    caf::reacts_to<atom::answered, std::uint64_t, write_outcome>,
    /// SETTLE's completions, collected: (ticket, outcomes) of a forwarded batch.
    caf::reacts_to<atom::answered, std::uint64_t, settle_outcomes>>;

/// REPLICA: a follower's catalog, kept equal to the primary's (replica_actor.hpp).
using replica_actor = replica_feed_actor::extend<
    /// its link: the primary's FEED, reached; the replica subscribes and watches it.
    caf::reacts_to<atom::connected, feed_remote_actor>,
    /// itself: the primary is unreachable; try to reach it again.
    caf::reacts_to<atom::connect>,
    /// ENGINE: writes at this follower, forwarded to the primary; each completion gets the
    /// primary's outcome, or unavailable when the link is down or the primary did not answer.
    caf::reacts_to<atom::declare, std::string, declare_command, write_completion>,
    caf::reacts_to<atom::delist, std::string, delist_command, write_completion>,
    caf::reacts_to<atom::settle, settle_batch, settle_answers>>;

/// REGISTRY: the global totals and the published snapshots (registry_actor.hpp).
using registry_actor = caf::typed_actor<
    /// PROVIDER: (provider, change, may_refuse) applies one provider's change. Answered (an
    /// empty reply) once readers can see its content when it changes content (items added,
    /// removed or rewritten); at once when it only moves counts or lastSeen. Counts and lastSeen,
    /// whatever change moved them, readers see within the counts interval. With may_refuse, a
    /// change that would pass a global budget is refused with errc::catalog_full; without it
    /// (counts, heartbeats, eviction) it always lands.
    caf::reacts_to<atom::commit, std::string, item_change, bool>,
    /// itself: the publication interval is over; publish the coalesced content changes.
    caf::reacts_to<atom::publish>,
    /// itself: the counts interval is over; publish the counts and lastSeen moved since.
    caf::reacts_to<atom::counts>,
    /// ENGINE: publish and write everything now; the version on disk (the published one with
    /// no catalog file), or the save's error.
    caf::replies_to<atom::flush>::with<std::uint64_t>,
    /// ENGINE: send every later publication to this watcher too (the FEED).
    caf::reacts_to<atom::watch, publication_watcher>>;

/// PROVIDER: one per provider, owner of its items and their counts (provider_actor.hpp).
using provider_actor = caf::typed_actor<
    /// ENGINE: a checked declaration: a heartbeat (its digest is the last one applied and every
    /// item it listed is still here) moves their lastSeen on; otherwise its items are upserted.
    /// The outcome goes to the completion.
    caf::reacts_to<atom::declare, declare_command, write_completion>,
    /// WRITES: (digest) a follower's heartbeat, forwarded as its digest alone: as a declare's
    /// heartbeat, or not_a_repeat when it is none.
    caf::reacts_to<atom::repeat, std::string, write_completion>,
    /// ENGINE: removes the named items of this provider, or all of them; ok with how many.
    caf::reacts_to<atom::delist, delist_command, write_completion>,
    /// SETTLE: counts a batch of settles on this provider's items; one outcome per event, in order.
    caf::replies_to<atom::settled, settle_batch>::with<settle_outcomes>,
    /// itself: (generation) the retention sweep and the UTC-day rollover are due.
    caf::reacts_to<atom::tick, std::uint64_t>,
    /// ENGINE: the provider was removed: drop its items and quit.
    caf::reacts_to<atom::forget>>;

/// SETTLE: routes each settle to the PROVIDER of its payTo, batched per provider (settle_actor.hpp).
using settle_actor = caf::typed_actor<
    /// ENGINE: who receives payments at which payTo; replaces the previous map.
    caf::reacts_to<atom::providers, payee_map>,
    /// ENGINE: one successful settle, answered once through its completion.
    caf::reacts_to<atom::settle, rules::settlement, settle_completion>,
    /// ENGINE: several settles, answers[i] answering events[i].
    caf::reacts_to<atom::settle, settle_batch, settle_answers>>;

}  // namespace z402::catalog
