#pragma once
// The embedded store (docs/contract.md §6): one JSON file and its journal. The file keeps what a
// restart needs: owner, listing order, lastSeen, lastUpdated and today's paid calls of every
// item. It is written whole (atomically) at a run's first save and whenever its journal has
// grown past it; every other save appends to the journal only what changed since the last one
// (a save cost the whole catalog each second, a quarter of the server's time at
// 65,536 items). A count or a heartbeat is a line of six numbers, not the item.
#include "z402/catalog/item.hpp"
#include "z402/catalog/snapshot.hpp"
#include "z402/config/atomic_file.hpp"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace z402::catalog {

/// The catalog file's bytes, passed to `sink` item by item (no string of the whole catalog).
void serialize_catalog(const snapshot& snap, const config::chunk_sink& sink);

/// Which catalog state a file holds: (epoch, version) as every node names it, and the UTC day
/// its items were rendered for. All 0 for a file written before they were kept.
struct catalog_position {
  std::uint64_t epoch = 0;
  std::uint64_t version = 0;
  std::int64_t day = 0;
};

/// The journal beside `file`: `<file>.journal`. Its first line names the catalog file it
/// continues (that file's epoch and version); then batches of lines, each an item written whole
/// ("item", as in the file), a count or heartbeat ("state": seq, declared, lastSeen, lastUpdated,
/// paidCalls, paidDay) or a removal ("removed": seq), each batch closed by the line that commits
/// it ("commit": the epoch, version and day the catalog is then at). A batch without its commit
/// line (a crash or a full disk mid-append) is not applied; the next append cuts it off.
std::filesystem::path journal_path(const std::filesystem::path& file);

/// What the catalog file and its journal hold for one item: what the next journal lines are
/// written against. The content is compared by identity: a version that kept it shares it.
struct saved_item {
  std::uint64_t seq = 0;
  content_ptr content;
  bool declared = true;
  std::int64_t last_seen_ms = -1;
  std::int64_t last_updated_ms = 0;
  daily_counts usage;
};
using saved_catalog = std::vector<saved_item>;  // in seq order

/// `snap` as saved (after the file or a journal batch of it is on disk).
saved_catalog saved_form(const snapshot& snap);

/// The journal's first line, for a catalog file that holds `file_snap`.
std::string journal_head(const snapshot& file_snap);

/// The journal lines that take `saved` to `snap`, then the line that commits them, passed to
/// `sink` a line at a time (a batch of every item, after a copy or a first declaration of many,
/// is never one string): work in proportion to the items, bytes in proportion to what changed.
/// `next` gets `snap` as saved.
void journal_batch(const saved_catalog& saved, const snapshot& snap, saved_catalog& next, const config::chunk_sink& sink);

/// A journal past the catalog file's size (and past a floor, so a small catalog is not written
/// whole every few saves) is folded into a new catalog file: loading reads at most about twice
/// the catalog, and a save costs at most about twice what changed, on average.
inline constexpr std::uint64_t journal_fold_floor = 1u << 20;
constexpr bool journal_full(std::uint64_t journal_bytes, std::uint64_t file_bytes) {
  return journal_bytes > std::max(file_bytes, journal_fold_floor);
}

struct catalog_load {
  enum class status { missing, loaded, corrupt };
  status state = status::missing;
  std::vector<item_record> records;
  catalog_position position;            // loaded: the state the file holds
  std::string problem;                  // corrupt: why
  std::filesystem::path moved_aside;    // corrupt: where the bad file went
  /// The journal could not be applied (a line broken before its batch's commit, or a change to
  /// an item the catalog does not hold): why. The file's items are loaded without it.
  std::string journal_problem;
  std::filesystem::path journal_moved_aside;  // where that journal went
};

/// Reads the catalog file, then applies its journal's committed batches (a journal that names
/// another file is left unread: the file was written after it). A corrupt file is renamed to
/// `<file>.corrupt-<ms>` and reported; the caller starts empty and the next heartbeat of every
/// ready service rebuilds it. A corrupt journal is renamed to `<journal>.corrupt-<ms>` and
/// reported; the file's items load.
catalog_load load_catalog(const std::filesystem::path& file, std::int64_t now_ms);

}  // namespace z402::catalog
