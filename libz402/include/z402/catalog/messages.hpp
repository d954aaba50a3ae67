#pragma once
// The types of the messages between the catalog actors (actors.hpp says who sends which).
// Completions (callbacks into the HTTP layer) and snapshots stay in their process: they are
// whitelisted below and never serialised. Everything else can cross machines
// (serialization.hpp).
#include "z402/catalog/completion.hpp"
#include "z402/catalog/item.hpp"
#include "z402/error.hpp"
#include "z402/catalog/payment_ledger.hpp"
#include "z402/catalog/snapshot.hpp"
#include "z402/rules/declaration.hpp"
#include "z402/rules/settlement.hpp"

#include <caf/allowed_unsafe_message_type.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace z402::catalog {

/// A declared item ready for the catalog: its content (text, filter facts, search terms) is
/// built where the item was checked, so the JSON tree is freed there and the PROVIDER actor
/// only compares texts.
struct declared_content {
  rules::item_identity identity;
  content_ptr content;
};

/// The validated items of one declaration: the rules already ran where it was received (the
/// server's checks thread, docs/architecture.md "A declaration's walk") before it crossed to the
/// PROVIDER.
struct declare_command {
  std::vector<declared_content> items;
  /// Of the declaration's body: a body equal to the provider's last one (a heartbeat) only moves
  /// its items' lastSeen on. Empty: the body is not known (every item is upserted).
  std::string digest;
  /// Forwarded by a follower: the last moment, on the primary's steady clock in ms, it may be
  /// applied (catalog/forward_deadline.hpp); past it the PROVIDER refuses it as unavailable.
  /// 0: taken at this node, no deadline.
  std::int64_t deadline_ms = 0;
};

/// The provider's items to remove: `keys` are item_identity::key()s; `all` removes every one.
struct delist_command {
  bool all = false;
  std::vector<std::string> keys;
  std::int64_t deadline_ms = 0;  // as declare_command's
};

/// The answer to a write, as the HTTP layer turns it into a response.
struct write_outcome {
  /// not_a_repeat answers only a follower's heartbeat sent as its digest alone (atom::repeat).
  enum class status { ok, refused, unavailable, not_a_repeat };
  status state = status::unavailable;
  /// Refused or unavailable: why, in the one error model (z402/error.hpp): a budget passed is
  /// catalog_full (the whole catalog) or invalid_request (the provider's own), field "items"; a
  /// write that could not land is unavailable. The HTTP layer answers from the code and field,
  /// never from the text. Its `item` is not sent between nodes: a budget names no item.
  z402::error problem{};
  std::size_t accepted = 0;
  std::int64_t last_seen_ms = 0;

  static write_outcome unavailable(std::string why) { return {status::unavailable, {errc::unavailable, {}, std::move(why)}, 0, 0}; }
  static write_outcome refused(z402::error why) { return {status::refused, std::move(why), 0, 0}; }
};

using write_completion = completion<write_outcome>;

/// What changed among one provider's items: only these cross to the REGISTRY.
/// A whole catalog as a follower takes it: the primary's epoch (drawn at each start)
/// and version, its items in listing order. Items travel with the day they were rendered for,
/// so a follower serves the same bytes under the same version, and ETags match across nodes.
struct catalog_copy {
  std::uint64_t epoch = 0;
  std::uint64_t version = 0;
  item_list items;
  std::size_t bytes = 0;      // the primary's totals for this version: a follower takes them as
  std::size_t providers = 0;  // they are, never counts them again
  std::int64_t sent_ms = 0;   // the FEED's steady clock when it sent this (forward_deadline.hpp)
};

/// An item whose content did not change from one version to the next, only what moves often:
/// counts and times. The follower applies it to the content it holds, so a count sends a few
/// numbers instead of the whole item.
struct item_counts {
  std::uint64_t seq = 0;
  bool declared = true;
  std::int64_t last_seen_ms = -1;
  std::int64_t last_updated_ms = 0;
  daily_counts usage;
  std::int64_t rendered_day = 0;  // the day its paidCallsToday and 30 days were rendered for
};

/// What changed in the primary's catalog from version `from` to `version`: only these cross.
struct catalog_delta {
  std::uint64_t epoch = 0;
  std::uint64_t from = 0;
  std::uint64_t version = 0;
  item_list upserts;                   // new items, or new versions (same seq) with new content
  std::vector<item_counts> recounted;  // new versions whose content is the one `from` held
  std::vector<std::uint64_t> removed;  // seqs of items that left
  std::size_t bytes = 0;               // the primary's totals at `version`
  std::size_t providers = 0;
  // The payments first counted after `from` up to `version`: the follower saves them as the
  // primary does, so once promoted it still counts each of them once.
  std::vector<payment_record> payments;
  std::int64_t sent_ms = 0;  // as catalog_copy's
};

struct item_change {
  item_list upserts;                   // new items, or new versions (same seq)
  std::vector<std::uint64_t> removed;  // seqs of items that left
  std::vector<payment_record> payments;  // counted by these upserts: saved with their counts
};

/// Why a settle event was not catalogued, as a stable code (metrics count by it; the reason
/// text says which field and which rule, and may name a payTo, so it is never a label).
/// Not an errc on purpose: a rejected settle is not an error of the request. The rail node gets
/// 200 with `bazaar.status: rejected` (docs/wire.md §4: the payment happened either way), and
/// these causes are the settle's own vocabulary (`rejectedReason`, the metric's label), finer
/// than the API's error codes.
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

/// The catalog's answer to a settle, as EXTENSION-RESPONSES carries it.
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
/// Hashes a std::string key and any text that equals it alike, so a map with it and
/// std::equal_to<> finds a key by a string_view without making a string.
struct text_hash {
  using is_transparent = void;
  std::size_t operator()(std::string_view text) const noexcept { return std::hash<std::string_view>{}(text); }
};
/// payTo -> provider name; a settle's payee is a view into its text.
using payee_map = std::unordered_map<std::string, std::string, text_hash, std::equal_to<>>;

}  // namespace z402::catalog

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(z402::catalog::write_completion)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(z402::catalog::settle_completion)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(z402::catalog::settle_answers)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(z402::catalog::snapshot_ptr)
