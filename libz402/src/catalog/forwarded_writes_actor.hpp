#pragma once
// WRITES (on the primary): the writes followers forward, handed to this node's
// PROVIDERs and SETTLE exactly as the engine hands its own, and answered with their outcomes.
// The FEED, the only actor other nodes reach, delegates them here, so a follower's request is
// answered from here directly. Outcomes come back through completions on the PROVIDERs' and
// SETTLE's threads; each carries a ticket back to this actor, which answers the request on its
// own thread. A follower that retries a settle after losing the answer is safe: SETTLE counts a
// payment once (settle_actor.hpp).
#include "z402/catalog/actors.hpp"
#include "z402/catalog/provider_directory.hpp"

#include <caf/all.hpp>

#include <cstdint>
#include <memory>
#include <unordered_map>

namespace z402::catalog {

struct writes_state {
  std::shared_ptr<provider_directory> directory;
  settle_actor settle;
  std::uint64_t next_ticket = 1;
  std::unordered_map<std::uint64_t, caf::typed_response_promise<write_outcome>> writes;
  std::unordered_map<std::uint64_t, caf::typed_response_promise<settle_outcomes>> settles;

  static inline const char* name = "z402.writes";
};

writes_actor::behavior_type forwarded_writes_handler(writes_actor::stateful_pointer<writes_state> self,
                                                     std::shared_ptr<provider_directory> directory, settle_actor settle);

}  // namespace z402::catalog
