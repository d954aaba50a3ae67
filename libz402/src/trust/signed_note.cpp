#include "z402/trust/signed_note.hpp"

#include "z402/core/crypto.hpp"
#include "z402/rules/text.hpp"
#include "z402/wire/base64.hpp"

#include <charconv>
#include <cstdio>
#include <set>
#include <utility>

#include <unicode/uchar.h>
#include <unicode/utf8.h>

namespace z402::trust {
namespace {

constexpr char ed25519_algorithm = 0x01;
constexpr std::string_view signature_prefix = "\xE2\x80\x94 ";  // U+2014 EM DASH, then a space
constexpr std::size_t max_signatures = 100;

std::uint32_t key_hash(std::string_view name, std::string_view public_key) {
  std::string input{name};
  input += '\n';
  input += ed25519_algorithm;
  input += public_key;
  auto digest = crypto::sha256(input);
  return (std::uint32_t{digest[0]} << 24) | (std::uint32_t{digest[1]} << 16) | (std::uint32_t{digest[2]} << 8) | digest[3];
}

std::string hash_text(std::uint32_t hash) {
  char out[9];
  std::snprintf(out, sizeof out, "%08x", hash);
  return out;
}

std::string big_endian(std::uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
}

/// Splits "NAME+HASH+BASE64" into its three parts; false when there are not three.
bool split_key(std::string_view text, std::string_view& name, std::string_view& hash, std::string_view& data) {
  auto a = text.find('+');
  if (a == std::string_view::npos) return false;
  auto b = text.find('+', a + 1);
  if (b == std::string_view::npos) return false;
  name = text.substr(0, a), hash = text.substr(a + 1, b - a - 1), data = text.substr(b + 1);
  return true;
}

/// A key's name and hash, and its 32 key bytes in `key_bytes`; the hash is not checked yet.
expected<verifier_key> parse_key_parts(std::string_view text, const std::string& field, std::string& key_bytes) {
  std::string_view name, hash, data;
  if (!split_key(text, name, hash, data)) return refused(field, field + " is not a key (NAME+HASH+BASE64)");
  if (!valid_key_name(name)) return refused(field, field + " has an invalid name");
  std::uint32_t h = 0;
  auto [end, ec] = std::from_chars(hash.data(), hash.data() + hash.size(), h, 16);
  if (hash.size() != 8 || ec != std::errc{} || end != hash.data() + hash.size())
    return refused(field, field + "'s hash is not 8 hex digits");
  auto raw = wire::base64_decode(data);
  if (!raw || raw->size() != 33) return refused(field, field + "'s key is not base64 of 33 bytes");
  if ((*raw)[0] != ed25519_algorithm) return refused(field, field + " is not an Ed25519 key (algorithm 1)");
  key_bytes = raw->substr(1);
  crypto::cleanse(*raw);
  return verifier_key{std::string{name}, h, {}};
}

}  // namespace

std::string verifier_key::text() const {
  return name + "+" + hash_text(hash) + "+" + wire::base64_encode(std::string(1, ed25519_algorithm) + public_key);
}

signer_key::signer_key(std::string name, std::string seed) : seed_(std::move(seed)) {
  verifier_.public_key = crypto::ed25519_public_key(seed_);
  verifier_.hash = key_hash(name, verifier_.public_key);
  verifier_.name = std::move(name);
}

signer_key::~signer_key() { crypto::cleanse(seed_); }
signer_key::signer_key(signer_key&& other) noexcept : seed_(std::move(other.seed_)), verifier_(std::move(other.verifier_)) {}
signer_key& signer_key::operator=(signer_key&& other) noexcept {
  crypto::cleanse(seed_);
  seed_ = std::move(other.seed_);
  verifier_ = std::move(other.verifier_);
  return *this;
}

std::string signer_key::text() const {
  std::string raw(1, ed25519_algorithm);
  raw += seed_;
  auto out = "PRIVATE+KEY+" + verifier_.name + "+" + hash_text(verifier_.hash) + "+" + wire::base64_encode(raw);
  crypto::cleanse(raw);
  return out;
}

std::string signer_key::sign(std::string_view message) const { return crypto::ed25519_sign(seed_, message); }

bool valid_key_name(std::string_view name) {
  if (name.empty() || name.find('+') != std::string_view::npos || !rules::check_shown_text(name, "name")) return false;
  // No Unicode space (the White_Space property, which Go's unicode.IsSpace tests too). The name
  // is valid UTF-8 here: check_shown_text refuses anything else.
  auto length = static_cast<std::int32_t>(name.size());
  for (std::int32_t at = 0; at < length;) {
    UChar32 c;
    U8_NEXT(name.data(), at, length, c);
    if (c < 0 || u_isUWhiteSpace(c)) return false;
  }
  return true;
}

expected<signer_key> generate_signer(std::string_view name) {
  if (!valid_key_name(name)) return refused("name", "name must be non-empty, without spaces or '+'");
  auto pair = crypto::ed25519_generate();
  return signer_key{std::string{name}, std::move(pair.seed)};
}

expected<verifier_key> parse_verifier(std::string_view text, std::string field) {
  std::string key;
  auto parts = parse_key_parts(text, field, key);
  if (!parts) return parts.error();
  if (key_hash(parts->name, key) != parts->hash) return refused(field, field + "'s hash does not match its name and key");
  parts->public_key = std::move(key);
  return parts;
}

expected<signer_key> parse_signer(std::string_view text, std::string field) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\r')) text.remove_suffix(1);
  constexpr std::string_view prefix = "PRIVATE+KEY+";
  if (!text.starts_with(prefix)) return refused(field, field + " is not a signer key (PRIVATE+KEY+NAME+HASH+BASE64)");
  std::string seed;
  auto parts = parse_key_parts(text.substr(prefix.size()), field, seed);
  if (!parts) return parts.error();
  signer_key key{std::move(parts->name), std::move(seed)};
  if (key.verifier().hash != parts->hash) return refused(field, field + "'s hash does not match its name and key");
  return key;
}

expected<std::string> sign_note(std::string_view text, const std::vector<const signer_key*>& signers) {
  if (text.empty() || text.back() != '\n') return refused("text", "a note's text ends with a newline");
  for (std::size_t at = 0; at < text.size();) {
    auto end = text.find('\n', at);
    if (auto ok = rules::check_shown_text(text.substr(at, end - at), "text"); !ok) return ok.error();
    at = end + 1;
  }
  if (signers.empty()) return refused("signers", "a note needs a signature");
  std::string out{text};
  out += "\n";
  for (auto* signer : signers) {
    auto& v = signer->verifier();
    out += signature_prefix;
    out += v.name;
    out += ' ';
    out += wire::base64_encode(big_endian(v.hash) + signer->sign(text));
    out += '\n';
  }
  return out;
}

expected<std::string> sign_note(std::string_view text, const signer_key& signer) { return sign_note(text, std::vector{&signer}); }

std::optional<std::string_view> unverified_text(std::string_view note) {
  auto split = note.rfind("\n\n");
  if (split == std::string_view::npos || note.back() != '\n' || split + 2 == note.size()) return std::nullopt;
  return note.substr(0, split + 1);
}

note_opening open_note(std::string_view note, const std::vector<verifier_key>& known) {
  auto refuse = [](note_failure f, std::string reason) { return note_opening{std::nullopt, note_refusal{f, std::move(reason)}}; };
  auto split = unverified_text(note);
  if (!split) return refuse(note_failure::malformed, "no blank line before signature lines that end with a newline");
  auto text = *split, sigs = note.substr(text.size() + 1);
  for (std::size_t at = 0; at < note.size();) {
    auto end = note.find('\n', at);
    if (end == std::string_view::npos) end = note.size();
    if (!rules::check_shown_text(note.substr(at, end - at), "note")) return refuse(note_failure::malformed, "a line holds a control character or invalid UTF-8");
    at = end + 1;
  }
  std::optional<std::string> verified_by;
  std::set<std::pair<std::string, std::uint32_t>> seen;
  std::size_t count = 0;
  while (!sigs.empty()) {
    auto end = sigs.find('\n');
    auto line = sigs.substr(0, end);
    sigs.remove_prefix(end + 1);
    if (++count > max_signatures) return refuse(note_failure::malformed, "more than 100 signatures");
    if (!line.starts_with(signature_prefix)) return refuse(note_failure::malformed, "a signature line does not start with an em dash");
    line.remove_prefix(signature_prefix.size());
    auto space = line.find(' ');
    auto name = line.substr(0, space);
    auto b64 = space == std::string_view::npos ? std::string_view{} : line.substr(space + 1);
    auto raw = wire::base64_decode(b64);
    if (!valid_key_name(name) || b64.empty() || !raw || raw->size() < 5)
      return refuse(note_failure::malformed, "a signature line is not NAME BASE64");
    auto* r = reinterpret_cast<const unsigned char*>(raw->data());
    std::uint32_t hash = (std::uint32_t{r[0]} << 24) | (std::uint32_t{r[1]} << 16) | (std::uint32_t{r[2]} << 8) | r[3];
    const verifier_key* key = nullptr;
    for (auto& k : known)
      if (k.name == name && k.hash == hash) key = &k;
    if (!key || !seen.emplace(key->name, key->hash).second) continue;
    if (!crypto::ed25519_verify(key->public_key, text, std::string_view{*raw}.substr(4)))
      return refuse(note_failure::bad_signature, "the signature of " + key->name + " does not match the note");
    if (!verified_by) verified_by = key->name;
  }
  if (!verified_by) return refuse(note_failure::unknown_signer, "signed by no known key");
  return note_opening{opened_note{std::string{text}, std::move(*verified_by)}, std::nullopt};
}

}  // namespace z402::trust
