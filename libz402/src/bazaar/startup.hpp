#pragma once
// The checks and loads that come before a Bazaar starts (bazaar.cpp), each one named step that
// says what it refuses and why: a server that would lose acknowledgements, or that could not
// open the files it serves with, does not start.
#include "z402/auth/keyring.hpp"
#include "z402/catalog/catalog_file.hpp"
#include "z402/catalog/engine.hpp"
#include "z402/config/bazaar_config.hpp"
#include "z402/error.hpp"
#include "z402/telemetry/log.hpp"

#include <filesystem>

namespace z402::startup {

/// The data directory exists (made when missing) and takes an atomic write: one that cannot be
/// written would lose every acknowledgement. io_error naming the directory otherwise.
expected<void> prepare_data_dir(const std::filesystem::path& dir);

/// The keyring in `data_dir`, read once (a malformed one is refused at start, not skipped).
expected<auth::keyring_file> read_keyring(const std::filesystem::path& data_dir);

/// The connection limit in force: the configured one, or three quarters of the fd limit when
/// it is 0. invalid_request (field maxConnections) when the configured one leaves too few fds
/// for the rest of the server.
expected<std::size_t> connection_limit(std::size_t configured);

/// The saved catalog, as the engine starts from it: a corrupt file or journal is moved aside
/// (and logged) and the catalog starts without it; items of providers removed while the server
/// was down are dropped; a follower resumes from the file's position only if it serves the file
/// as it was (every item kept, rendered for the same UTC day).
catalog::catalog_load load_catalog_records(const std::filesystem::path& file, const auth::keyring& keys, std::int64_t now,
                                          const telemetry::logger& log);

/// A primary's signed catalog (docs/trust.md): on when the data directory holds a keys note.
/// Refused (the file's error) when the keys note, the online key or the sequence file do not
/// check; a follower signs nothing (it serves its primary's notes) and gets nullopt.
expected<std::optional<catalog::engine_options::signing_setup>> signing_of(const config::bazaar_config& cfg, std::int64_t now_ms,
                                                                             const telemetry::logger& log);

/// Who is paid at which payTo, from the keyring.
catalog::payee_map payees_of(const auth::keyring& keys);

}  // namespace z402::startup
