#pragma once
// The payments file beside the catalog file: the ids of the payments counted, so a payment
// reported again after a restart is still not counted again (payment_ledger.hpp).
// Appended, never rewritten on the hot path: "z402pay1", then one 24-byte record per payment
// (id high, id low, counted at Unix ms; each little-endian 64 bits) in the order counted.
//
// PERSISTENCE appends the payments of a snapshot (fdatasync) before it writes the catalog file
// of that snapshot, so the file always holds at least the payments whose counts are on disk: a
// crash may lose the last counts (docs/contract.md §6), never let a counted payment count twice. A
// torn append (a crash or a full disk mid-record) leaves a partial record at the end, which a
// load ignores and the next append cuts off.
#include "z402/catalog/payment_ledger.hpp"
#include "z402/error.hpp"

#include <cstdint>
#include <filesystem>
#include <vector>

namespace z402::catalog {

inline constexpr std::size_t payment_record_bytes = 24;
inline constexpr std::size_t payment_file_header_bytes = 8;

struct payments_load {
  enum class status { missing, loaded, corrupt };
  status state = status::missing;
  std::vector<payment_record> records;  // within the window, at most `capacity`, oldest first
  std::uint64_t records_in_file = 0;    // every whole record, aged out or not
  std::uint64_t good_bytes = 0;         // the header and the whole records: where the next append goes
  std::string problem;                  // corrupt: why
};

/// Reads the file: the newest `capacity` payments counted after `now_ms - window_ms`. A file
/// that does not start with the header is corrupt: it is renamed to `<file>.corrupt-<ms>` and
/// the caller starts with no remembered payments.
payments_load load_payments(const std::filesystem::path& file, std::int64_t now_ms, std::int64_t window_ms,
                            std::size_t capacity);

/// Cuts the file back to `good_bytes` (a torn append), appends `records` and syncs; creates it
/// with its header when `good_bytes` is 0. On success `good_bytes` is the new end. io_error
/// (field: the file) when any step fails; the records are then not on disk.
expected<void> append_payments(const std::filesystem::path& file, std::uint64_t& good_bytes,
                               const std::vector<payment_record>& records);

/// Replaces the file atomically with `records` (compaction: a file grown past twice the
/// capacity is rewritten with what a load keeps).
expected<void> rewrite_payments(const std::filesystem::path& file, const std::vector<payment_record>& records);

}  // namespace z402::catalog
