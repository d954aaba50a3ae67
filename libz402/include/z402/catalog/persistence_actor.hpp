#pragma once
// PERSISTENCE: writes the newest snapshot to the catalog file, at most about once per
// interval while changes arrive (coalesced), and at once on flush (clean shutdown).
#include "z402/catalog/coalescer.hpp"
#include "z402/catalog/engine_context.hpp"
#include "z402/catalog/messages.hpp"

#include <caf/all.hpp>

#include <chrono>
#include <filesystem>

namespace z402::catalog {

struct persistence_state {
  std::filesystem::path file;
  coalescer writes;  // at most one file write per interval
  snapshot_ptr latest;
  std::uint64_t written_version = 0;
  engine_context ctx;  // the log, the clock and the save counters

  static inline const char* name = "z402.persistence";
};

using persistence_actor = caf::stateful_actor<persistence_state>;

caf::behavior persistence(persistence_actor* self, std::filesystem::path file, std::chrono::milliseconds interval,
                          engine_context ctx);

}  // namespace z402::catalog
