#pragma once
// SETTLE: every successful settle passes here. It finds the provider by the payTo of the
// server's requirements and hands the event to that PROVIDER. Events for one provider are
// batched: while a batch is being counted the next one collects, so a burst of settles costs
// one commit per batch, and the order of events per provider is kept.
#include "z402/catalog/actors.hpp"
#include "z402/catalog/provider_directory.hpp"

#include <caf/all.hpp>

#include <memory>
#include <unordered_map>

namespace z402::catalog {

struct settle_state {
  struct queue {
    settle_batch events;
    std::vector<settle_completion> answers;
    bool in_flight = false;
  };

  engine_context ctx;
  std::shared_ptr<provider_directory> directory;
  payee_map provider_of;                          // payTo -> provider name
  std::unordered_map<std::string, queue> queues;  // by provider name
  caf::actor_clock::time_point last_log{};
  std::uint64_t unlogged_rejections = 0;

  static inline const char* name = "z402.settle";
};

settle_actor::behavior_type settle(settle_actor::stateful_pointer<settle_state> self, engine_context ctx,
                                   std::shared_ptr<provider_directory> directory);

}  // namespace z402::catalog
