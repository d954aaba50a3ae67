#include "z402/trust/verification.hpp"

#include "z402/core/crypto.hpp"
#include "z402/wire/iso_time.hpp"

namespace z402::trust {
namespace {

refusal refuse(check c, std::string reason) { return {c, std::move(reason)}; }

notes_verdict refused_notes(check c, std::string reason) { return {std::nullopt, refuse(c, std::move(reason))}; }

bool expired(std::int64_t expires_ms, std::int64_t now_ms) { return now_ms > expires_ms + allowed_skew_ms; }

}  // namespace

std::string_view name_of(check c) {
  switch (c) {
    case check::keys_signature: return "keys-signature";
    case check::keys_expired: return "keys-expired";
    case check::catalog_signature: return "catalog-signature";
    case check::catalog_expired: return "catalog-expired";
    case check::catalog_bytes: return "catalog-bytes";
    case check::rollback: return "rollback";
    case check::equivocation: return "equivocation";
  }
  return "unknown";
}

int exit_code_of(check c) { return 4 + static_cast<int>(c); }

std::string refusal::line() const { return "refused (" + std::string{name_of(failed)} + "): " + reason; }

notes_verdict verify_notes(const verifier_key& root, std::string_view keys_note, std::string_view catalog_note, std::int64_t now_ms) {
  auto keys_open = open_note(keys_note, {root});
  if (!keys_open.note) return refused_notes(check::keys_signature, "the keys note: " + keys_open.refusal->reason);
  auto keys = parse_keys_statement(keys_open.note->text);
  if (!keys) return refused_notes(check::keys_signature, "the keys note, signed by the root key, is not a keys note: " + keys.error().reason);
  if (keys->origin != root.name)
    return refused_notes(check::keys_signature, "the keys note is for " + keys->origin + ", the root key names " + root.name);
  if (expired(keys->expires_ms, now_ms))
    return refused_notes(check::keys_expired, "the keys note expired at " + wire::format_iso_ms(keys->expires_ms));
  auto catalog_open = open_note(catalog_note, keys->online);
  if (!catalog_open.note) return refused_notes(check::catalog_signature, "the catalog note: " + catalog_open.refusal->reason);
  auto catalog = parse_catalog_statement(catalog_open.note->text);
  if (!catalog) return refused_notes(check::catalog_signature, "the signed catalog note is not a catalog note: " + catalog.error().reason);
  if (catalog->origin != keys->origin)
    return refused_notes(check::catalog_signature, "the catalog note is for " + catalog->origin + ", the keys for " + keys->origin);
  if (expired(catalog->expires_ms, now_ms))
    return refused_notes(check::catalog_expired, "the catalog note expired at " + wire::format_iso_ms(catalog->expires_ms));
  return {verified_notes{std::move(*keys), std::move(*catalog)}, std::nullopt};
}

std::optional<refusal> verify_bytes(const catalog_statement& note, std::string_view bytes) {
  if (bytes.size() != note.size)
    return refuse(check::catalog_bytes, "the catalog is " + std::to_string(bytes.size()) + " bytes, the note says " + std::to_string(note.size));
  if (!crypto::constant_time_equal(crypto::sha256_bytes(bytes), note.sha256))
    return refuse(check::catalog_bytes, "the catalog's SHA-256 is not the note's");
  return std::nullopt;
}

std::optional<refusal> check_history(const std::optional<remembered>& before, const catalog_statement& note) {
  if (!before) return std::nullopt;
  if (note.sequence < before->sequence)
    return refuse(check::rollback, "sequence " + std::to_string(note.sequence) + " is older than " + std::to_string(before->sequence) +
                                       ", already seen for " + note.origin);
  if (note.sequence == before->sequence && note.sha256 != before->sha256)
    return refuse(check::equivocation, "sequence " + std::to_string(note.sequence) + " of " + note.origin +
                                           " names other bytes than when it was first seen");
  return std::nullopt;
}

}  // namespace z402::trust
