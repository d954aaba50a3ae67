#pragma once
// Files that must never be seen half-written (catalog.md §6): write a temporary file beside
// the target, fsync it, rename it over the target, fsync the directory.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace z402::config {

/// Receives the file's bytes in order, a chunk at a time.
using chunk_sink = std::function<void(std::string_view)>;

/// Replaces `path` atomically with what `produce` passes to its sink, written through a
/// small buffer: a 16 MiB catalog is never held as one string. Returns an error description.
std::optional<std::string> write_file_atomically(const std::filesystem::path& path,
                                                 const std::function<void(const chunk_sink&)>& produce);

/// Replaces `path` with `content` atomically. Returns an error description on failure.
std::optional<std::string> write_file_atomically(const std::filesystem::path& path, std::string_view content);

/// Reads a whole file; nullopt when it does not exist, throws std::runtime_error on I/O errors.
std::optional<std::string> read_file(const std::filesystem::path& path);

}  // namespace z402::config
