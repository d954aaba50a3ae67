#pragma once
// PERSISTENCE: writes the newest snapshot to the catalog file, at most about once per
// interval while changes arrive (coalesced), and at once on flush (clean shutdown). A write
// that fails (disk full, I/O error, a read-only or vanished data dir) is tried again with
// backoff (250 ms doubling to 5 s) until it succeeds, without waiting for another change; the
// failure is counted, shown on /health, and logged at most once a minute.
#include "z402/catalog/actors.hpp"
#include "z402/catalog/coalescer.hpp"
#include "z402/catalog/engine_context.hpp"

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
  std::int64_t failing_since_ms = 0;                  // 0: the last write succeeded
  std::chrono::milliseconds retry_delay{0};           // the last retry's delay; 0: saving works
  bool retry_armed = false;
  caf::actor_clock::time_point last_failure_log{};
  std::uint64_t unlogged_failures = 0;

  static inline const char* name = "z402.persistence";
};

persistence_actor::behavior_type persistence(persistence_actor::stateful_pointer<persistence_state> self,
                                             std::filesystem::path file, std::chrono::milliseconds interval,
                                             engine_context ctx);

}  // namespace z402::catalog
