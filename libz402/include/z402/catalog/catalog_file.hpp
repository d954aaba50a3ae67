#pragma once
// The embedded store: one JSON file (catalog.md §6). The file keeps what a restart needs:
// owner, listing order, lastSeen, lastUpdated and today's paid calls of every item.
#include "z402/catalog/item.hpp"
#include "z402/catalog/snapshot.hpp"
#include "z402/config/atomic_file.hpp"

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

struct catalog_load {
  enum class status { missing, loaded, corrupt };
  status state = status::missing;
  std::vector<item_record> records;
  catalog_position position;            // loaded: the state the file holds
  std::string problem;                  // corrupt: why
  std::filesystem::path moved_aside;    // corrupt: where the bad file went
};

/// Reads the catalog file. A corrupt file is renamed to `<file>.corrupt-<ms>` and reported;
/// the caller starts empty and the next heartbeat of every ready service rebuilds it.
catalog_load load_catalog(const std::filesystem::path& file, std::int64_t now_ms);

}  // namespace z402::catalog
