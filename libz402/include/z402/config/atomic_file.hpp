#pragma once
// Files that must never be seen half-written (catalog.md §6): write a temporary file beside
// the target, fsync it, rename it over the target, fsync the directory.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace z402::config {

/// Replaces `path` with `content` atomically. Returns an error description on failure.
std::optional<std::string> write_file_atomically(const std::filesystem::path& path, std::string_view content);

/// Reads a whole file; nullopt when it does not exist, throws std::runtime_error on I/O errors.
std::optional<std::string> read_file(const std::filesystem::path& path);

}  // namespace z402::config
