#pragma once
// The agent's checks of a signed catalog (docs/trust.md §4), in the order they run: the keys
// note against the pinned root key, the catalog note against the online keys it delegates, the
// bytes against the catalog note, the note against what this agent saw before. Each check that
// fails is named, with its own exit code, so a script can tell a tampered copy from a stale one.
#include "z402/trust/statements.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace z402::trust {

enum class check : std::uint8_t {
  keys_signature,     // the keys note is not signed by the pinned root key (or is not a keys note)
  keys_expired,       // the keys note's expiry is more than the allowed skew ago
  catalog_signature,  // the catalog note is not signed by a delegated key, or is not a catalog note of that origin
  catalog_expired,    // the catalog note's expiry is more than the allowed skew ago
  catalog_bytes,      // the bytes are not the note's size, or not its SHA-256
  rollback,           // a lower sequence than this agent has already seen for that catalog
  equivocation,       // the sequence seen before, naming other bytes
};

/// "keys-signature", "catalog-expired", ...: the name a refusal line prints.
std::string_view name_of(check c);
/// The process exit code of a refusal (4 to 10; see z402-discover --help).
int exit_code_of(check c);

struct refusal {
  check failed;
  std::string reason;  // one sentence
  /// "refused (CHECK): REASON".
  std::string line() const;
};

/// How far a note's expiry may be in the past: the clocks of the agent and the signer disagree.
constexpr std::int64_t allowed_skew_ms = 60'000;

/// The catalog note that checked out, and the keys note that vouched for it.
struct verified_notes {
  keys_statement keys;
  catalog_statement catalog;
};
struct notes_verdict {
  std::optional<verified_notes> notes;
  std::optional<refusal> refused;  // set when `notes` is not
};
/// The keys note opened with `root`, for the origin the root key names (a root key's name is its
/// catalog's origin) and still valid at `now_ms`, then the catalog note opened
/// with the keys it names, of the same origin and still valid.
notes_verdict verify_notes(const verifier_key& root, std::string_view keys_note, std::string_view catalog_note, std::int64_t now_ms);

/// `bytes` are those `note` names (size first: a reader stops at `note.size` bytes).
std::optional<refusal> verify_bytes(const catalog_statement& note, std::string_view bytes);

/// What an agent remembers of a catalog: the highest sequence it accepted and its digest.
struct remembered {
  std::uint64_t sequence = 0;
  std::string sha256;  // 32 raw bytes
};
/// `note` against what was remembered for its origin: a lower sequence is a rollback, the same
/// sequence with another digest an equivocation.
std::optional<refusal> check_history(const std::optional<remembered>& before, const catalog_statement& note);

}  // namespace z402::trust
