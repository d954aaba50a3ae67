#pragma once
// PERSISTENCE: saves the newest snapshot, at most about once per interval while changes arrive
// (coalesced), and at once on flush (clean shutdown). A run's first save writes the catalog file
// whole and starts its journal; later saves append what changed to the journal, until it has
// grown past the file and the next save writes the file whole again (catalog_file.hpp). A flush
// writes the file whole: after a clean stop the catalog file alone holds the catalog. A write
// that fails (disk full, I/O error, a read-only or vanished data dir) is tried again with
// backoff (250 ms doubling to 5 s) until it succeeds, without waiting for another change; the
// failure is counted, shown on /health, and logged at most once a minute. The save after a
// failure writes the file whole: whatever the failure left of the journal is replaced.
//
// The payments counted in a snapshot are appended to the payments file before the catalog file
// of that snapshot is written (payment_file.hpp); a failed append fails the save the same way.
#include "z402/catalog/actors.hpp"
#include "z402/catalog/catalog_file.hpp"
#include "catalog/coalescer.hpp"
#include "z402/catalog/engine_context.hpp"

#include <caf/all.hpp>

#include <chrono>
#include <filesystem>
#include <vector>

namespace z402::catalog {

/// Where the payments file ends (payment_file.hpp); an empty path: payments are not saved.
struct payments_file_end {
  std::filesystem::path file;
  std::uint64_t good_bytes = 0;  // where the next append goes; 0: not created yet
  std::uint64_t records = 0;     // whole records in the file, aged out or not
};

struct persistence_state {
  std::filesystem::path file;
  payments_file_end payments;
  std::vector<payment_record> unsaved_payments;  // of the snapshots received since the last append
  coalescer writes;  // at most one file write per interval
  snapshot_ptr latest;
  std::uint64_t written_version = 0;
  saved_catalog saved;             // what the catalog file and its journal hold
  saved_catalog next_saved;        // the next batch's, swapped in once it is on disk
  std::uint64_t file_bytes = 0;    // the catalog file's size, as last written whole
  std::uint64_t journal_bytes = 0; // the journal's end; 0: the next save writes the file whole
  std::uint64_t journal_head_bytes = 0;  // its first line's: beyond it, the journal holds changes
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
                                             engine_context ctx, payments_file_end payments);

}  // namespace z402::catalog
