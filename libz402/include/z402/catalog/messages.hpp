#pragma once
// Every message between the catalog actors, with what it means. Local only: the types carry
// shared pointers and callbacks, so they are whitelisted and never serialised.
#include "z402/catalog/completion.hpp"
#include "z402/catalog/item.hpp"
#include "z402/catalog/snapshot.hpp"
#include "z402/rules/declaration.hpp"
#include "z402/rules/settlement.hpp"

#include <caf/all.hpp>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace z402::catalog {

namespace atom {
/// HTTP -> PROVIDER: (declare, declare_command, completion<write_outcome>) upserts items.
using declare = caf::atom_constant<caf::atom("declare")>;
/// HTTP -> PROVIDER: (repeat, digest, completion<write_outcome>) the same body as the last
/// declaration applied (a heartbeat): refreshes its items' lastSeen without parsing it again;
/// answers not_a_repeat when the digest is not that declaration's or one of its items left.
using repeat = caf::atom_constant<caf::atom("repeat")>;
/// HTTP -> PROVIDER: (delist, delist_command, completion<write_outcome>) removes the named
/// items of this provider, or all of them; answers ok with `accepted` = how many it removed.
using delist = caf::atom_constant<caf::atom("delist")>;
/// PROVIDER -> REGISTRY: (commit, provider, item_change, may_refuse) upserts and removes some
/// of the provider's items; answers true once readers can see them. With may_refuse, a change
/// that would pass a global budget is refused with ec::catalog_full; without it (counts,
/// eviction) it always lands.
using commit = caf::atom_constant<caf::atom("commit")>;
/// anyone -> SETTLE: (settle, settlement, settle_completion) one successful settle, or
/// (settle, settle_batch, settle_answers) several, answered one by one.
using settle = caf::atom_constant<caf::atom("settle")>;
/// SETTLE -> PROVIDER: (settled, settle_batch) counts a batch; answers settle_outcomes in order.
using settled = caf::atom_constant<caf::atom("settled")>;
/// ENGINE -> SETTLE: (providers, payee_map) who receives payments at which payTo.
using providers = caf::atom_constant<caf::atom("providers")>;
/// PROVIDER -> PROVIDER: (tick, generation) retention sweep and UTC-day rollover.
using tick = caf::atom_constant<caf::atom("tick")>;
/// REGISTRY -> REGISTRY: publish the coalesced changes.
using publish = caf::atom_constant<caf::atom("publish")>;
/// REGISTRY -> PERSISTENCE: (persist, snapshot_ptr) a newer catalog to write.
using persist = caf::atom_constant<caf::atom("persist")>;
/// PERSISTENCE -> PERSISTENCE: the coalescing delay is over.
using write = caf::atom_constant<caf::atom("write")>;
/// PERSISTENCE -> PERSISTENCE: a failed write is tried again (backoff up to 5 s).
using retry = caf::atom_constant<caf::atom("retry")>;
/// anyone -> REGISTRY: publish and write everything now; answers true when on disk.
using flush = caf::atom_constant<caf::atom("flush")>;
/// ENGINE -> PROVIDER: the provider was removed: drop its items and quit.
using forget = caf::atom_constant<caf::atom("forget")>;
}  // namespace atom

/// Failures the actors report to each other.
enum class ec : std::uint8_t { none = 0, catalog_full, provider_full };

caf::error make_error(ec code, std::string message);

/// A declared item ready for the catalog: its content (text, filter facts, search terms) is
/// built where the item was checked, so the JSON tree is freed there and the PROVIDER actor
/// only compares texts.
struct declared_content {
  rules::item_identity identity;
  content_ptr content;
};

/// The validated items of one declaration: the rules already ran, on the server's checks thread
/// (http::app_state::checks), before it crossed to the PROVIDER.
struct declare_command {
  std::vector<declared_content> items;
  std::string digest;  // of the declaration's body: a heartbeat repeating it is recognised
};

/// The provider's items to remove: `keys` are item_identity::key()s; `all` removes every one.
struct delist_command {
  bool all = false;
  std::vector<std::string> keys;
};

/// The answer to a write, as the HTTP layer turns it into a response.
struct write_outcome {
  enum class status { ok, refused, unavailable, not_a_repeat };
  status state = status::unavailable;
  std::string message;  // refused or unavailable: what went wrong
  std::size_t accepted = 0;
  std::int64_t last_seen_ms = 0;

  static write_outcome unavailable(std::string why) { return {status::unavailable, std::move(why), 0, 0}; }
};

using write_completion = completion<write_outcome>;

/// What changed among one provider's items: only these cross to the REGISTRY.
struct item_change {
  item_list upserts;                   // new items, or new versions (same seq)
  std::vector<std::uint64_t> removed;  // seqs of items that left
};

/// The catalog's answer to a settle, as EXTENSION-RESPONSES carries it.
/// Why a settle event was not catalogued, as a stable code (metrics count by it; the reason
/// text says which field and which rule, and may name a payTo, so it is never a label).
enum class settle_rejection : std::uint8_t {
  invalid_body,      // the body names no payee or resource, or a field breaks a rule
  unknown_payee,     // no provider has this payTo
  not_declared,      // the provider declares and no declared item matches
  payment_item_cap,  // the provider's payment-only items are at their limit
  invalid_echo,      // echoed metadata breaks a declaration rule
  catalog_full,      // a new payment-only item does not fit the global budgets
  unavailable,       // the catalog is stopping or an actor is gone
};
inline constexpr std::size_t settle_rejection_count = 7;
std::string_view to_string(settle_rejection r);

struct settle_outcome {
  enum class status { success, rejected };
  status state = status::rejected;
  settle_rejection cause = settle_rejection::unavailable;  // rejected only
  std::string reason;                                      // rejected: which field, which rule

  static settle_outcome success() { return {status::success, {}, {}}; }
  static settle_outcome rejected(settle_rejection cause, std::string why) {
    return {status::rejected, cause, std::move(why)};
  }
};

using settle_completion = completion<settle_outcome>;
using settle_batch = std::vector<rules::settlement>;
using settle_answers = std::vector<settle_completion>;
using settle_outcomes = std::vector<settle_outcome>;
/// payTo -> provider name
using payee_map = std::unordered_map<std::string, std::string>;

}  // namespace z402::catalog

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(z402::catalog::declare_command)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(z402::catalog::delist_command)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(z402::catalog::write_completion)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(z402::catalog::item_list)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(z402::catalog::item_change)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(z402::catalog::snapshot_ptr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(z402::rules::settlement)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(z402::catalog::settle_completion)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(z402::catalog::settle_batch)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(z402::catalog::settle_outcomes)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(z402::catalog::settle_answers)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(z402::catalog::payee_map)
