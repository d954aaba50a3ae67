#pragma once
// What the catalog's two signed notes say (docs/trust.md §3), as TUF splits its roles: the keys
// note, signed by the offline root key, names the online keys and until when they may sign; the
// catalog note, signed by an online key, names one version of the whole catalog's bytes by size
// and SHA-256, with a sequence number that only grows and an expiry. Each is a fixed series of
// lines, parsed strictly: a note that says anything else is not ours.
#include "z402/error.hpp"
#include "z402/trust/signed_note.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace z402::trust {

/// The catalog note's text:
///   ORIGIN
///   z402 catalog 1
///   sequence N
///   size N
///   sha256 BASE64
///   expires ISO-8601
struct catalog_statement {
  std::string origin;          // the catalog's name, a key name (no spaces)
  std::uint64_t sequence = 0;  // grows with every note the primary signs, across restarts
  std::uint64_t size = 0;      // bytes of the catalog
  std::string sha256;          // 32 raw bytes
  std::int64_t expires_ms = 0;
};
std::string text_of(const catalog_statement& s);
/// invalid_request naming the line at fault.
expected<catalog_statement> parse_catalog_statement(std::string_view text);

/// The keys note's text:
///   ORIGIN
///   z402 catalog keys 1
///   expires ISO-8601
///   online VERIFIER-KEY       (one to max_online_keys lines)
struct keys_statement {
  std::string origin;
  std::int64_t expires_ms = 0;
  std::vector<verifier_key> online;
};
constexpr std::size_t max_online_keys = 8;
std::string text_of(const keys_statement& s);
expected<keys_statement> parse_keys_statement(std::string_view text);

/// The catalog bytes' file name under /discovery/catalog/: the SHA-256 in hex, then ".json".
std::string catalog_file_name(std::string_view sha256);

}  // namespace z402::trust
