#pragma once
// Files that must never be seen half-written (docs/contract.md §6): write a temporary file beside
// the target, fsync it, rename it over the target, fsync the directory.
#include "z402/error.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace z402::config {

/// Receives the file's bytes in order, a chunk at a time.
using chunk_sink = std::function<void(std::string_view)>;

/// Replaces `path` atomically with what `produce` passes to its sink, written through a
/// small buffer: a 16 MiB catalog is never held as one string. io_error (field: the file,
/// reason: the step and the system's word) when it could not; no temporary file is left.
expected<void> write_file_atomically(const std::filesystem::path& path, const std::function<void(const chunk_sink&)>& produce);

/// Replaces `path` with `content` atomically, the same way.
expected<void> write_file_atomically(const std::filesystem::path& path, std::string_view content);

/// Appends `bytes` to `path` at `good_bytes`, the end of what the last append left whole: a torn
/// append (a crash or a full disk mid-write) is cut off first. Synced (fdatasync, and the
/// directory when `good_bytes` is 0: the file is new). On success `good_bytes` is the new end;
/// io_error (field: the file) when any step fails, and the file's whole part is left as it was.
expected<void> append_durably(const std::filesystem::path& path, std::uint64_t& good_bytes, std::string_view bytes);

/// The same for what `produce` passes to its sink, written through a small buffer: a large
/// append is never held as one string.
expected<void> append_durably(const std::filesystem::path& path, std::uint64_t& good_bytes,
                              const std::function<void(const chunk_sink&)>& produce);

/// An io_error about `file` (its field): `what` failed, and the system's word for why (errno).
error io_failure(const std::filesystem::path& file, const std::string& what);

/// Syncs the directory that holds `file`, so that a file created or renamed there is still there
/// after a crash. io_error (field: `file`) when it cannot.
expected<void> sync_directory_of(const std::filesystem::path& file);

/// Reads a whole file: not_found when it does not exist, io_error when it cannot be read.
expected<std::string> read_file(const std::filesystem::path& path);

}  // namespace z402::config
