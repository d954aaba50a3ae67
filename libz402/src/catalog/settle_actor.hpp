#pragma once
// SETTLE: every successful settle passes here. It finds the provider by the payTo of the
// server's requirements and hands the event to that PROVIDER. Events for one provider are
// batched: while a batch is being counted the next one collects, so a burst of settles costs
// one commit per batch, and the order of events per provider is kept.
//
// A settle counts once: a payment already counted (payment_ledger.hpp) is answered as
// it was, success, and counts nothing; one reported again while it is being counted waits for
// the first's outcome and gets the same answer. Only counted payments are remembered: a rejected
// one counted nothing, so sending it again can at most count it once, as it should.
#include "z402/catalog/actors.hpp"
#include "z402/catalog/payment_ledger.hpp"
#include "z402/catalog/provider_directory.hpp"

#include <caf/all.hpp>

#include <memory>
#include <unordered_map>

namespace z402::catalog {

struct settle_state {
  struct queue {
    settle_batch events;
    std::vector<settle_completion> answers;
    std::vector<rules::payment_id> payments;  // payments[i] is events[i]'s
    bool in_flight = false;
  };

  engine_context ctx;
  std::shared_ptr<provider_directory> directory;
  payee_map provider_of;                          // payTo -> provider name
  std::unordered_map<std::string, queue> queues;  // by provider name
  payment_ledger counted{0, 0};                   // the payments counted: set at spawn
  /// Payments on their way to their PROVIDER, with the repeats that wait for their outcome.
  std::unordered_map<rules::payment_id, std::vector<settle_completion>, rules::payment_id_hash> counting;
  caf::actor_clock::time_point last_log{};
  std::uint64_t unlogged_rejections = 0;

  static inline const char* name = "z402.settle";
};

/// `remembered`: the payments counted before a restart (the payments file), oldest first.
settle_actor::behavior_type settle(settle_actor::stateful_pointer<settle_state> self, engine_context ctx,
                                   std::shared_ptr<provider_directory> directory, std::vector<payment_record> remembered);

}  // namespace z402::catalog
