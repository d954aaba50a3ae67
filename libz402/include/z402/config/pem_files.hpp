#pragma once
// What the HTTPS certificate and the cluster's credentials share when they are read: a private
// key readable by others is refused, and OpenSSL's reason for a refused file is one line.
#include "z402/error.hpp"

#include <filesystem>
#include <string>
#include <string_view>

namespace z402::config {

/// Refuses (errc::io_error, `field`) a key file that cannot be stat'ed or that others may read
/// or write; `what` names it in the reason ("the TLS key", "cluster.key").
expected<void> refuse_readable_key(const std::filesystem::path& key, std::string_view what, std::string field = {});

/// OpenSSL's oldest queued error as one line (the queue is cleared), or "not a valid PEM file".
std::string openssl_reason();

}  // namespace z402::config
