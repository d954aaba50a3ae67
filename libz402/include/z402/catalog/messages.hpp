#pragma once
// Every message between the catalog actors, with what it means. Local only: the types carry
// shared pointers and callbacks, so they are whitelisted and never serialised.
#include "z402/catalog/completion.hpp"
#include "z402/catalog/item.hpp"
#include "z402/catalog/snapshot.hpp"
#include "z402/rules/declaration.hpp"

#include <caf/all.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace z402::catalog {

namespace atom {
/// HTTP -> PROVIDER: (declare, declare_command, completion<write_outcome>) upserts items.
using declare = caf::atom_constant<caf::atom("declare")>;
/// PROVIDER -> REGISTRY: (commit, provider, item_list) replaces the provider's items if the
/// global budgets allow it; answers true once readers can see them.
using commit = caf::atom_constant<caf::atom("commit")>;
/// PROVIDER -> PROVIDER: (tick, generation) retention sweep and UTC-day rollover.
using tick = caf::atom_constant<caf::atom("tick")>;
/// REGISTRY -> REGISTRY: publish the coalesced changes.
using publish = caf::atom_constant<caf::atom("publish")>;
/// REGISTRY -> PERSISTENCE: (persist, snapshot_ptr) a newer catalog to write.
using persist = caf::atom_constant<caf::atom("persist")>;
/// PERSISTENCE -> PERSISTENCE: the coalescing delay is over.
using write = caf::atom_constant<caf::atom("write")>;
/// anyone -> REGISTRY: publish and write everything now; answers true when on disk.
using flush = caf::atom_constant<caf::atom("flush")>;
/// ENGINE -> PROVIDER: the provider was removed: drop its items and quit.
using forget = caf::atom_constant<caf::atom("forget")>;
}  // namespace atom

/// Failures the actors report to each other.
enum class ec : std::uint8_t { none = 0, catalog_full, provider_full };

caf::error make_error(ec code, std::string message);

/// The validated items of one declaration (the rules already ran on the io thread).
struct declare_command {
  std::vector<rules::declared_item> items;
};

/// The answer to a write, as the HTTP layer turns it into a response.
struct write_outcome {
  enum class status { ok, refused, unavailable };
  status state = status::unavailable;
  std::string message;  // refused or unavailable: what went wrong
  std::size_t accepted = 0;
  std::int64_t last_seen_ms = 0;

  static write_outcome unavailable(std::string why) { return {status::unavailable, std::move(why), 0, 0}; }
};

using write_completion = completion<write_outcome>;

}  // namespace z402::catalog

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(z402::catalog::declare_command)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(z402::catalog::write_completion)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(z402::catalog::item_list)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(z402::catalog::snapshot_ptr)
