#pragma once
// Who is the PROVIDER actor of a provider name: spawned on first use, shared by the engine
// (declarations, delistings, removals, on the callers' threads) and SETTLE (payments). Only
// writers touch it; reads never do.
//
// Why a lock and not actor state: SETTLE asks once per batch of a provider's settles, not per
// settle, and the lock guards a hash lookup that declarations rarely contend for. One map under
// one lock keeps a single answer to "which actor is this provider's": a copy cached in SETTLE
// would have to learn of every removal, or it would send a removed provider's payments to an
// actor that has ended, or bring the provider back.
#include "z402/catalog/actors.hpp"
#include "z402/catalog/engine_context.hpp"
#include "z402/catalog/item.hpp"

#include <caf/all.hpp>

#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace z402::catalog {

class provider_directory {
 public:
  provider_directory(caf::actor_system& sys, engine_context ctx, registry_actor registry,
                     std::unordered_map<std::string, item_list> initial);

  /// The PROVIDER of `name`, spawned (with its items loaded from disk) on first use.
  provider_actor get(const std::string& name);
  /// Forgets `name`; returns its actor (null when it had none).
  provider_actor remove(const std::string& name);
  /// Sends every PROVIDER an exit; returns them, for a caller that waits until they are gone.
  std::vector<provider_actor> stop_all();

 private:
  caf::actor_system& sys_;
  engine_context ctx_;
  registry_actor registry_;
  std::mutex mutex_;
  std::unordered_map<std::string, provider_actor> actors_;
  std::unordered_map<std::string, item_list> initial_;  // loaded items of providers not spawned yet
};

}  // namespace z402::catalog
