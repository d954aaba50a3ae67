#pragma once
// Provider records (docs/contract.md §1): name, payTo and the SHA-256 of the one API key, in their
// own file beside the catalog (never lost to a catalog rebuild). The CLI edits the file under
// a lock; a running server re-reads it when it changes (key_store::reload).
#include "z402/error.hpp"
#include "z402/telemetry/log.hpp"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace z402::auth {

struct provider_record {
  std::string name;
  std::string pay_to;
  std::string key_hash;  // hex SHA-256 of the key
  std::int64_t created_ms = 0;
};

/// A rail node's key for POST /discovery/settled, stored like provider keys.
struct settle_key_record {
  std::string key_hash;
  std::int64_t created_ms = 0;
};

struct keyring {
  std::vector<provider_record> providers;
  std::vector<settle_key_record> settle_keys;
  const provider_record* find(std::string_view name) const;
};

/// A provider name is 1-64 of A-Z a-z 0-9 . _ - (refused, field "name", otherwise).
expected<void> check_provider_name(std::string_view name);
/// A payTo address is 1-256 printable ASCII, no spaces (refused, field "payTo", otherwise).
expected<void> check_pay_to(std::string_view pay_to);

std::filesystem::path keyring_path(const std::filesystem::path& data_dir);

/// Reads the keyring; an absent file is an empty keyring. An unreadable file is errc::io_error,
/// a malformed one errc::corrupt (operators must hear of it; nothing is overwritten).
expected<keyring> load_keyring(const std::filesystem::path& file);

/// A keyring file as read once, with the stamp (size, mtime, inode) taken before the read: a
/// change during the read is seen by the next key_store::reload.
struct keyring_file {
  keyring keys;
  std::string stamp;
};
expected<keyring_file> read_keyring_file(const std::filesystem::path& file);

/// The CLI's edits. Each takes the data dir's lock, re-reads, changes, writes atomically, and
/// on any error changes nothing: a name or payTo that breaks a rule or is taken (invalid_request),
/// an unknown provider (not_found), a keyring that cannot be read, locked or written (io_error,
/// corrupt). add/rotate answer the new key, which is shown once and stored only as its hash.
expected<std::string> add_provider(const std::filesystem::path& data_dir, std::string_view name, std::string_view pay_to,
                                   std::int64_t now_ms);
expected<std::string> rotate_provider_key(const std::filesystem::path& data_dir, std::string_view name);
expected<void> remove_provider(const std::filesystem::path& data_dir, std::string_view name);
/// A new settle key for a rail node in another process; shown once, stored as its hash.
expected<std::string> create_settle_key(const std::filesystem::path& data_dir, std::int64_t now_ms);

/// What a reload found.
struct keyring_change {
  bool changed = false;
  std::vector<std::string> removed;  // provider names that disappeared
};
/// The server's view of the keyring: swapped atomically, reloaded when the file changes.
class key_store {
 public:
  /// `log` hears when a changed file cannot be read (the previous keys stay in force). No keys
  /// until the first reload.
  key_store(std::filesystem::path file, telemetry::logger log);
  /// The keys of `first`, the file as read at start (a server refuses to start on a malformed one).
  key_store(std::filesystem::path file, telemetry::logger log, keyring_file first);

  /// Re-reads the file if its size, mtime or inode changed. A malformed file keeps the
  /// previous keyring (and logs once).
  keyring_change reload();

  /// The provider whose key is `presented`, compared by hash in constant time.
  std::optional<provider_record> authenticate(std::string_view presented) const;
  /// Whether `presented` is a settle key, compared by hash in constant time.
  bool is_settle_key(std::string_view presented) const;

  std::shared_ptr<const keyring> current() const { return current_.load(std::memory_order_acquire); }

 private:
  std::filesystem::path file_;
  telemetry::logger log_;
  std::string stamp_;
  std::atomic<std::shared_ptr<const keyring>> current_;
};

}  // namespace z402::auth
