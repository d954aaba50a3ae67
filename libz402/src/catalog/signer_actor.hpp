#pragma once
// SIGNER (a primary's, detached: rendering and hashing a whole catalog takes milliseconds to
// tens of them, and the sequence file is synced): signs the newest snapshot (docs/trust.md §5).
// Once a second it looks at the snapshot store; when the catalog changed and `interval` has
// passed since the last publication, or `resign_after` has (the note must never run short), it
// renders the whole catalog, hashes it, records the next sequence number on disk, and only then
// signs the note and publishes it, so a sequence is never served twice with other bytes, even
// across a crash. Each note is valid for `validity`: re-signed every 5 minutes and valid for
// 15, a served note always has 10 minutes left while the primary runs.
//
// The online key and the keys note are read again when either file changes (a rotation needs
// no restart); files that no longer check leave the keys in use as they were, and say why in
// the log once per change.
#include "z402/catalog/actors.hpp"
#include "z402/catalog/engine_context.hpp"
#include "z402/catalog/signed_catalog.hpp"
#include "z402/catalog/snapshot.hpp"
#include "z402/config/signing_files.hpp"

#include <caf/all.hpp>

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>

namespace z402::catalog {

struct signing_rhythm {
  std::chrono::milliseconds interval{10'000};        // between publications of a changing catalog
  std::chrono::milliseconds resign_after{300'000};   // the longest between two notes
  std::chrono::milliseconds validity{900'000};       // a note's life
};

struct signer_state {
  config::signing_files files;
  signing_rhythm rhythm;
  std::shared_ptr<const snapshot_store> snapshots;
  std::shared_ptr<signed_store> out;
  std::optional<config::signing_keys> keys;
  std::filesystem::file_time_type key_time{}, note_time{};  // of the files as last read
  std::uint64_t sequence = 0;                 // the last signed (and on disk)
  std::uint64_t signed_epoch = 0, signed_version = 0;  // the snapshot last signed
  std::int64_t signed_ms = 0;                 // when; 0: never
  std::uint64_t unsaved_sequence_failures = 0;
  engine_context ctx;

  static inline const char* name = "z402.signer";
};

/// `keys` (taken from; shared because CAF copies spawn arguments) and `sequence` were read and
/// checked at start (bazaar/startup.cpp).
signer_actor::behavior_type signer(signer_actor::stateful_pointer<signer_state> self, config::signing_files files,
                                   std::shared_ptr<config::signing_keys> keys, std::uint64_t sequence, signing_rhythm rhythm,
                                   std::shared_ptr<const snapshot_store> snapshots, std::shared_ptr<signed_store> out,
                                   engine_context ctx);

}  // namespace z402::catalog
