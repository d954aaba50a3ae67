#pragma once
// Signed notes (docs/trust.md §2), the text format of Go's checksum database, so that code that
// already verifies those (golang.org/x/mod/sumdb/note) verifies ours: a UTF-8 text of lines, a
// blank line, then one line per signature, "— NAME BASE64(KEYHASH || SIGNATURE)". Keys are
// Ed25519 and written as text: a verifier key "NAME+HASH+BASE64(0x01 || PUBLIC)", a signer key
// "PRIVATE+KEY+NAME+HASH+BASE64(0x01 || SEED)", HASH being the first 4 bytes of
// SHA-256(NAME "\n" 0x01 || PUBLIC) in 8 hex digits.
#include "z402/error.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace z402::trust {

/// A public key that checks signatures, with its name and key hash.
struct verifier_key {
  std::string name;
  std::uint32_t hash = 0;
  std::string public_key;  // 32 raw bytes
  /// "NAME+HASH+BASE64".
  std::string text() const;
};

/// A private key that signs. Its seed is a secret: cleansed when the key is dropped, never
/// written anywhere but its own 0600 file.
class signer_key {
 public:
  signer_key(std::string name, std::string seed);
  ~signer_key();
  signer_key(signer_key&&) noexcept;
  signer_key& operator=(signer_key&&) noexcept;
  signer_key(const signer_key&) = delete;
  signer_key& operator=(const signer_key&) = delete;

  const verifier_key& verifier() const { return verifier_; }
  /// "PRIVATE+KEY+NAME+HASH+BASE64": what the key's file holds.
  std::string text() const;
  /// The 64-byte Ed25519 signature of `message`.
  std::string sign(std::string_view message) const;

 private:
  std::string seed_;
  verifier_key verifier_;
};

/// Whether `name` may name a key: not empty, valid UTF-8, no spaces, no '+'.
bool valid_key_name(std::string_view name);

/// A new signer key named `name` (invalid_request, field `name`, when it may not be a name).
expected<signer_key> generate_signer(std::string_view name);
/// Parses a verifier key's text: invalid_request naming `field` when malformed, of another
/// algorithm, or when its hash does not match its name and key.
expected<verifier_key> parse_verifier(std::string_view text, std::string field = "key");
/// Parses a signer key's text (surrounding whitespace ignored), checked the same way.
expected<signer_key> parse_signer(std::string_view text, std::string field = "key");

/// `text` (lines, each ending in "\n") signed by each of `signers` in turn: the note's whole
/// bytes. More than one signer: a keys note during a root key's rotation, which agents pinning
/// either root accept.
expected<std::string> sign_note(std::string_view text, const std::vector<const signer_key*>& signers);
/// The same with one signer.
expected<std::string> sign_note(std::string_view text, const signer_key& signer);

/// A note whose signature by a known key checked out.
struct opened_note {
  std::string text;           // up to and including the last line's "\n" before the blank line
  std::string signed_by;      // the name of the verifier that checked it
};

/// Why a note was not opened.
enum class note_failure : std::uint8_t {
  malformed,        // not a signed note (control characters, no signature block, a bad line)
  unknown_signer,   // well formed, but signed by none of the known keys
  bad_signature,    // a known key's signature does not check
};
struct note_refusal {
  note_failure failure;
  std::string reason;  // one sentence
};

/// Opens `note` with `known`: the signatures by keys not known are skipped; at least one known
/// key must have signed, and every known key's signature must check. At most 100 signatures.
/// As Go's note.Open.
struct note_opening {
  std::optional<opened_note> note;
  std::optional<note_refusal> refusal;  // set when `note` is not
};
note_opening open_note(std::string_view note, const std::vector<verifier_key>& known);

/// The text of a well-formed note, its signatures not checked: for the primary, which holds the
/// keys note but not the root key that signed it (the agents check that signature).
std::optional<std::string_view> unverified_text(std::string_view note);

}  // namespace z402::trust
