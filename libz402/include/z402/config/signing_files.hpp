#pragma once
// The files a primary signs its catalog with (docs/trust.md §5), all in its data directory:
// the online key (catalog-online.key, "PRIVATE+KEY+...", readable by its owner only), the keys
// note that delegates it (catalog-keys.note, signed offline by the root key, which never
// comes here), and the last sequence number signed (catalog.sequence), so that it only grows,
// across restarts too. Signing is on when the keys note is there.
#include "z402/error.hpp"
#include "z402/trust/signed_note.hpp"
#include "z402/trust/statements.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace z402::config {

struct signing_files {
  std::filesystem::path online_key;
  std::filesystem::path keys_note;
  std::filesystem::path sequence;
};

/// The three files' places in `data_dir`.
signing_files signing_files_in(const std::filesystem::path& data_dir);

/// The keys a primary signs with, read and checked together.
struct signing_keys {
  trust::signer_key online;
  std::string keys_note;        // as the file holds it: served unchanged
  trust::keys_statement keys;   // what it says
};

/// Reads the online key and the keys note, or says why they cannot sign: io_error for a key
/// file others may read or a file that cannot be read, invalid_request (field: the file) for a
/// key or note that is malformed, a keys note that does not name the online key, or one expired
/// at `now_ms`.
expected<signing_keys> load_signing_keys(const signing_files& files, std::int64_t now_ms);

/// The last sequence signed: 0 when the file does not exist; corrupt when it holds anything but
/// a decimal number and a newline.
expected<std::uint64_t> read_sequence(const std::filesystem::path& file);
/// Records `sequence` as the last signed (atomically, synced) before a note with it is served.
expected<void> write_sequence(const std::filesystem::path& file, std::uint64_t sequence);

}  // namespace z402::config
