#pragma once
// PROVIDER: one per provider. Owns its items, their lastSeen and paidCallsToday, the
// retention timer that evicts items with neither a declaration nor a paid call for the
// retention period, and the UTC-midnight timer that makes paidCallsToday read 0.
#include "z402/catalog/actors.hpp"
#include "z402/catalog/engine_context.hpp"

#include <caf/all.hpp>

#include <map>
#include <string>

namespace z402::catalog {

struct provider_state {
  engine_context ctx;
  registry_actor registry;
  std::string provider;
  std::map<std::string, item_ptr, std::less<>> items;  // by identity key; found by a settle's view of it
  std::uint64_t timer_generation = 0;     // delayed_send cannot be cancelled: stale ticks are ignored
  std::int64_t armed_for = -1;            // wall time the live timer fires at; -1: none
  std::string last_digest;                // of the last declaration applied
  std::vector<std::string> last_keys;     // the identity keys it listed

  static inline const char* name = "z402.provider";
};

/// `initial` are this provider's items loaded from disk.
provider_actor::behavior_type provider(provider_actor::stateful_pointer<provider_state> self, engine_context ctx,
                                       registry_actor registry, std::string name, item_list initial);

}  // namespace z402::catalog
