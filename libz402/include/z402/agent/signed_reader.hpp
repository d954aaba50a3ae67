#pragma once
// Reads a signed catalog (docs/trust.md §4) the way an agent that pins the catalog's root key
// must: the keys note and the catalog note from the discovery URL (any node or mirror: they are
// signed), checked before anything else is read; then the bytes the note names, from the
// discovery URL or a mirror, reading no more than the note's size; then what this agent saw of
// that catalog before (its state file), so an older note (rollback) or another catalog under the
// same sequence (equivocation) is refused. Only a catalog that passed every check is
// remembered and ranked.
#include "z402/agent/catalog_reader.hpp"
#include "z402/http/client.hpp"
#include "z402/trust/verification.hpp"

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

namespace z402::agent {

struct signed_source {
  trust::verifier_key root;          // pinned
  std::string discovery_url;         // where the notes are read: /discovery/catalog/{keys.note,note}
  std::string mirror_url;            // where the bytes are read (URL/<sha256>.json); empty: the discovery URL's
  std::filesystem::path state_file;  // what this agent remembers of each catalog
};

struct signed_read {
  catalog_read catalog;                         // its items, when every check passed
  std::optional<trust::catalog_statement> note;  // the verified note
  std::optional<trust::refusal> refused;        // a check failed (catalog.error is then empty)
};

/// Reads and checks the signed catalog at `now_ms`, under the deadline of `limits` (the budget
/// is the note's size for the bytes, 64 KiB for each note).
signed_read read_signed_catalog(http::client& client, const signed_source& source, const read_limits& limits, std::int64_t now_ms);

/// The default state file: $XDG_STATE_HOME/z402-discover/catalogs.json, else
/// ~/.local/state/z402-discover/catalogs.json.
std::filesystem::path default_state_file();

}  // namespace z402::agent
