#define CAF_SUITE trust
#include "test.hpp"

#include "z402/config/atomic_file.hpp"
#include "z402/config/signing_files.hpp"
#include "z402/core/crypto.hpp"
#include "z402/trust/signed_note.hpp"
#include "z402/trust/statements.hpp"
#include "z402/trust/verification.hpp"
#include "z402/wire/iso_time.hpp"

using namespace z402;
using namespace z402::trust;

namespace {

std::string unhex(std::string_view hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) out.push_back(static_cast<char>(std::stoi(std::string{hex.substr(i, 2)}, nullptr, 16)));
  return out;
}

// Go's own test vector (golang.org/x/mod/sumdb/note, note_test.go): a key and the exact note it signs.
constexpr std::string_view go_signer = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";
constexpr std::string_view go_verifier = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
constexpr std::string_view go_text = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
constexpr std::string_view go_note =
    "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n\n"
    "\xE2\x80\x94 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n";

constexpr std::int64_t now = 1'780'000'000'000;  // 2026-05-28T21:46:40Z
constexpr std::int64_t minute = 60'000;

/// A root, an online key, and the two notes they sign, as a primary would publish them.
struct signed_catalog {
  signer_key root = std::move(*generate_signer("bazaar.test"));
  signer_key online = std::move(*generate_signer("bazaar.test/online"));
  std::string bytes = R"({"x402Version":2,"items":[],"pagination":{"limit":0,"offset":0,"total":0}})";
  keys_statement keys{"bazaar.test", now + 90 * 24 * 60 * minute, {online.verifier()}};
  catalog_statement catalog() const {
    return {"bazaar.test", 7, bytes.size(), crypto::sha256_bytes(bytes), now + 15 * minute};
  }
  std::string keys_note() const { return *sign_note(text_of(keys), root); }
  std::string catalog_note() const { return *sign_note(text_of(catalog()), online); }
};

std::optional<check> failed_check(const notes_verdict& v) { return v.refused ? std::optional{v.refused->failed} : std::nullopt; }

/// The check a refusal names (the checking macros keep references: no member of a temporary).
std::optional<check> failed_check(const std::optional<refusal>& r) { return r ? std::optional{r->failed} : std::nullopt; }

}  // namespace

CAF_TEST(the RFC 8032 Ed25519 vectors pass through our signing and verifying) {
  struct vector {
    std::string_view seed, public_key, message, signature;
  };
  const vector vectors[] = {
      {"9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60", "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
       "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"},
      {"4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb", "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
       "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"},
      {"c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7", "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82",
       "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"},
  };
  for (auto& v : vectors) {
    auto seed = unhex(v.seed), message = unhex(v.message);
    CAF_CHECK_EQUAL(crypto::hex(crypto::ed25519_public_key(seed)), v.public_key);
    CAF_CHECK_EQUAL(crypto::hex(crypto::ed25519_sign(seed, message)), v.signature);
    CAF_CHECK(crypto::ed25519_verify(unhex(v.public_key), message, unhex(v.signature)));
    auto bent = unhex(v.signature);
    bent[10] ^= 1;
    CAF_CHECK(!crypto::ed25519_verify(unhex(v.public_key), message, bent));
    CAF_CHECK(!crypto::ed25519_verify(unhex(v.public_key), message + "x", unhex(v.signature)));
  }
  CAF_CHECK(!crypto::ed25519_verify("short", "", std::string(64, '\0')));
}

CAF_TEST(notes are signed byte for byte as the Go note package signs them and its notes open) {
  auto signer = parse_signer(go_signer);
  CAF_REQUIRE(signer);
  CAF_CHECK_EQUAL(signer->verifier().text(), go_verifier);
  auto note = sign_note(go_text, *signer);
  CAF_REQUIRE(note);
  CAF_CHECK_EQUAL(*note, go_note);
  auto verifier = parse_verifier(go_verifier);
  CAF_REQUIRE(verifier);
  auto opened = open_note(go_note, {*verifier});
  CAF_REQUIRE(opened.note);
  CAF_CHECK_EQUAL(opened.note->text, go_text);
  CAF_CHECK_EQUAL(opened.note->signed_by, "PeterNeumann");
}

CAF_TEST(keys round trip through their text and a bent key is refused) {
  auto key = generate_signer("bazaar.test/online");
  CAF_REQUIRE(key);
  auto again = parse_signer(key->text() + "\n");
  CAF_REQUIRE(again);
  CAF_CHECK_EQUAL(again->verifier().text(), key->verifier().text());
  CAF_CHECK(parse_verifier(key->verifier().text()));
  CAF_CHECK(!generate_signer("has space"));
  // Every Unicode space (White_Space) is refused, as Go's note package refuses them; other
  // characters beyond ASCII are names like any.
  for (auto spaced : {"a\tb", "a\xC2\xA0" "b", "a\xE2\x80\x80" "b", "a\xE2\x80\x8A" "b", "a\xE2\x80\xA8" "b", "a\xE3\x80\x80" "b",
                      "a\xE1\x9A\x80" "b"})
    CAF_CHECK(!valid_key_name(spaced));
  CAF_CHECK(valid_key_name("caf\xC3\xA9.example/online"));
  CAF_CHECK(valid_key_name("a\xE2\x80\x8B" "b"));  // a zero-width space is not White_Space
  CAF_CHECK(!generate_signer("a+b"));
  CAF_CHECK(!generate_signer(""));
  CAF_CHECK(!parse_verifier("PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"));   // hash
  CAF_CHECK(!parse_verifier("PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"));   // algorithm
  CAF_CHECK(!parse_verifier("PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10"));     // length
  CAF_CHECK(!parse_verifier("Peter Neumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"));  // name
  CAF_CHECK(!parse_signer(go_verifier));
  auto refusal = parse_verifier("nonsense", "--root-key");
  CAF_REQUIRE(!refusal);
  CAF_CHECK_EQUAL(refusal.error().field, "--root-key");
}

CAF_TEST(a note opens only whole and signed by a known key) {
  auto verifier = *parse_verifier(go_verifier);
  auto other = generate_signer("PeterNeumann")->verifier();  // the same name, another key
  auto failure = [&](std::string_view note, std::vector<verifier_key> known) {
    auto o = open_note(note, known);
    return o.refusal ? std::optional{o.refusal->failure} : std::nullopt;
  };
  CAF_CHECK_EQUAL(failure(go_note, {other}), note_failure::unknown_signer);
  CAF_CHECK_EQUAL(failure(go_note, {}), note_failure::unknown_signer);
  std::string bent{go_note};
  bent[3] ^= 0x20;  // the text
  CAF_CHECK_EQUAL(failure(bent, {verifier}), note_failure::bad_signature);
  bent = go_note;
  bent[bent.size() - 10] = bent[bent.size() - 10] == 'A' ? 'B' : 'A';  // the signature
  CAF_CHECK_EQUAL(failure(bent, {verifier}), note_failure::bad_signature);
  CAF_CHECK_EQUAL(failure(std::string{go_text}, {verifier}), note_failure::malformed);      // no signatures
  CAF_CHECK_EQUAL(failure(std::string{go_note} + "x", {verifier}), note_failure::malformed);  // no final newline
  bent = go_note;
  bent.replace(0, 2, "\x1b[");
  CAF_CHECK_EQUAL(failure(bent, {verifier}), note_failure::malformed);
  // 100 signatures are read, the 101st is refused.
  std::string unknown_line = "\xE2\x80\x94 Someone AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n";
  std::string at_limit{go_note};
  for (int i = 0; i < 99; ++i) at_limit += unknown_line;
  CAF_CHECK(open_note(at_limit, {verifier}).note);
  CAF_CHECK_EQUAL(failure(at_limit + unknown_line, {verifier}), note_failure::malformed);
  // Our notes go through what we sign: no control characters, a final newline.
  auto key = std::move(*parse_signer(go_signer));
  CAF_CHECK(!sign_note("no newline", key));
  CAF_CHECK(!sign_note("tab\there\n", key));
}

CAF_TEST(statements parse only as written) {
  signed_catalog s;
  auto c = s.catalog();
  auto parsed = parse_catalog_statement(text_of(c));
  CAF_REQUIRE(parsed);
  CAF_CHECK_EQUAL(parsed->origin, "bazaar.test");
  CAF_CHECK_EQUAL(parsed->sequence, 7u);
  CAF_CHECK_EQUAL(parsed->size, s.bytes.size());
  CAF_CHECK(parsed->sha256 == c.sha256);
  CAF_CHECK_EQUAL(parsed->expires_ms, c.expires_ms);
  auto text = text_of(c);
  auto field_of = [](std::string_view t) { auto p = parse_catalog_statement(t); return p ? std::string{} : p.error().field; };
  CAF_CHECK_EQUAL(field_of(text.substr(0, text.size() - 1)), "text");
  CAF_CHECK_EQUAL(field_of("bazaar test\n" + text.substr(text.find('\n') + 1)), "origin");
  auto replace = [&](std::string_view from, std::string_view to) {
    auto t = text;
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  CAF_CHECK_EQUAL(field_of(replace("z402 catalog 1", "z402 catalog 2")), "format");
  CAF_CHECK_EQUAL(field_of(replace("sequence 7", "sequence 07")), "sequence");
  CAF_CHECK_EQUAL(field_of(replace("sequence 7", "sequence -7")), "sequence");
  CAF_CHECK_EQUAL(field_of(replace("size ", "bytes ")), "size");
  CAF_CHECK_EQUAL(field_of(replace("sha256 ", "sha256 AAAA")), "sha256");
  CAF_CHECK_EQUAL(field_of(replace("expires 20", "expires x20")), "expires");
  auto keys = parse_keys_statement(text_of(s.keys));
  CAF_REQUIRE(keys);
  CAF_CHECK_EQUAL(keys->online.size(), 1u);
  CAF_CHECK_EQUAL(keys->online[0].text(), s.online.verifier().text());
  // One to eight online keys.
  keys_statement many = s.keys;
  while (many.online.size() < max_online_keys) many.online.push_back(generate_signer("bazaar.test/k")->verifier());
  CAF_CHECK(parse_keys_statement(text_of(many)));
  many.online.push_back(generate_signer("bazaar.test/k")->verifier());
  CAF_CHECK(!parse_keys_statement(text_of(many)));
  many.online.clear();
  CAF_CHECK(!parse_keys_statement(text_of(many)));
}

CAF_TEST(the checks of the agent name what failed) {
  signed_catalog s;
  auto root = s.root.verifier();
  auto ok = verify_notes(root, s.keys_note(), s.catalog_note(), now);
  CAF_REQUIRE(ok.notes);
  CAF_CHECK(!verify_bytes(ok.notes->catalog, s.bytes));
  // Tampering: the bytes, the note's text, its signature line; a note signed by the root itself.
  auto bytes = s.bytes;
  bytes[5] ^= 1;
  CAF_CHECK_EQUAL(failed_check(verify_bytes(ok.notes->catalog, bytes)), check::catalog_bytes);
  CAF_CHECK_EQUAL(failed_check(verify_bytes(ok.notes->catalog, s.bytes + " ")), check::catalog_bytes);
  auto note = s.catalog_note();
  note[note.find("sequence 7") + 9] = '8';
  CAF_CHECK_EQUAL(failed_check(verify_notes(root, s.keys_note(), note, now)), check::catalog_signature);
  note = s.catalog_note();
  note[note.size() - 5] = note[note.size() - 5] == 'A' ? 'B' : 'A';
  CAF_CHECK_EQUAL(failed_check(verify_notes(root, s.keys_note(), note, now)), check::catalog_signature);
  CAF_CHECK_EQUAL(failed_check(verify_notes(root, s.keys_note(), *sign_note(text_of(s.catalog()), s.root), now)), check::catalog_signature);
  auto keys = s.keys_note();
  keys[2] ^= 1;
  CAF_CHECK_EQUAL(failed_check(verify_notes(root, keys, s.catalog_note(), now)), check::keys_signature);
  CAF_CHECK_EQUAL(failed_check(verify_notes(s.online.verifier(), s.keys_note(), s.catalog_note(), now)), check::keys_signature);
  // Another origin's catalog under these keys.
  auto foreign = s.catalog();
  foreign.origin = "elsewhere.test";
  CAF_CHECK_EQUAL(failed_check(verify_notes(root, s.keys_note(), *sign_note(text_of(foreign), s.online), now)), check::catalog_signature);
  // Expiry, with 60 s of skew: refused at expiry + 61 s, not at + 60 s.
  auto expires = s.catalog().expires_ms;
  CAF_CHECK(verify_notes(root, s.keys_note(), s.catalog_note(), expires + 60'000).notes);
  CAF_CHECK_EQUAL(failed_check(verify_notes(root, s.keys_note(), s.catalog_note(), expires + 61'000)), check::catalog_expired);
  CAF_CHECK_EQUAL(failed_check(verify_notes(root, s.keys_note(), s.catalog_note(), s.keys.expires_ms + 61'000)), check::keys_expired);
  // History: rollback and equivocation.
  auto c = s.catalog();
  CAF_CHECK(!check_history(std::nullopt, c));
  CAF_CHECK(!check_history(remembered{7, c.sha256}, c));
  CAF_CHECK(!check_history(remembered{6, std::string(32, 'x')}, c));
  CAF_CHECK_EQUAL(failed_check(check_history(remembered{8, c.sha256}, c)), check::rollback);
  CAF_CHECK_EQUAL(failed_check(check_history(remembered{7, std::string(32, 'x')}, c)), check::equivocation);
  // Each check its own exit code, named in its line.
  CAF_CHECK_EQUAL(exit_code_of(check::keys_signature), 4);
  CAF_CHECK_EQUAL(exit_code_of(check::equivocation), 10);
  CAF_CHECK_EQUAL(check_history(remembered{8, c.sha256}, c)->line().substr(0, 19), "refused (rollback):");
}

CAF_TEST(a keys note signed by two roots opens with either) {
  auto old_root = std::move(*generate_signer("bazaar.test"));
  auto new_root = std::move(*generate_signer("bazaar.test"));
  auto online = std::move(*generate_signer("bazaar.test/online"));
  keys_statement keys{"bazaar.test", now + minute, {online.verifier()}};
  auto note = sign_note(text_of(keys), std::vector<const signer_key*>{&old_root, &new_root});
  CAF_REQUIRE(note);
  auto catalog = *sign_note(text_of(catalog_statement{"bazaar.test", 1, 0, std::string(32, 'h'), now + minute}), online);
  CAF_CHECK(verify_notes(old_root.verifier(), *note, catalog, now).notes);
  CAF_CHECK(verify_notes(new_root.verifier(), *note, catalog, now).notes);
  CAF_CHECK(!sign_note(text_of(keys), std::vector<const signer_key*>{}));
  // The root's name is the catalog's origin: a keys note for another origin is refused.
  auto stranger = std::move(*generate_signer("other.test"));
  CAF_CHECK_EQUAL(failed_check(verify_notes(stranger.verifier(), *sign_note(text_of(keys), stranger), catalog, now)), check::keys_signature);
}

CAF_TEST(the signing files are refused at start for each reason they do not check) {
  test::temp_dir dir{"z402-signing"};
  auto files = config::signing_files_in(dir.path);
  auto root = std::move(*generate_signer("bazaar.test"));
  auto online = std::move(*generate_signer("bazaar.test/online"));
  auto other = std::move(*generate_signer("bazaar.test/other"));
  auto keys_note = [&](std::int64_t expires, const signer_key& delegated) {
    return *sign_note(text_of(keys_statement{"bazaar.test", expires, {delegated.verifier()}}), root);
  };
  auto failure = [&] {
    auto k = config::load_signing_keys(files, now);
    return k ? std::string{} : k.error().reason;
  };
  CAF_CHECK(failure().find("cannot read") != std::string::npos);  // no online key
  CAF_REQUIRE(config::write_file_atomically(files.online_key, online.text() + "\n"));
  CAF_CHECK(failure().find("does not exist") != std::string::npos);  // no keys note
  CAF_REQUIRE(config::write_file_atomically(files.keys_note, keys_note(now + minute, online)));
  CAF_CHECK_EQUAL(failure(), "");
  std::filesystem::permissions(files.online_key, std::filesystem::perms::others_read, std::filesystem::perm_options::add);
  CAF_CHECK(failure().find("readable by others") != std::string::npos);
  std::filesystem::permissions(files.online_key, std::filesystem::perms::others_read, std::filesystem::perm_options::remove);
  CAF_REQUIRE(config::write_file_atomically(files.keys_note, keys_note(now + minute, other)));
  CAF_CHECK(failure().find("does not name the online key") != std::string::npos);
  CAF_REQUIRE(config::write_file_atomically(files.keys_note, keys_note(now - 1, online)));
  CAF_CHECK(failure().find("expired") != std::string::npos);
  CAF_REQUIRE(config::write_file_atomically(files.keys_note, "not a note\n"));
  CAF_CHECK(failure().find("is not a signed note") != std::string::npos);
  CAF_REQUIRE(config::write_file_atomically(files.online_key, "PRIVATE+KEY+broken\n"));
  CAF_CHECK(failure().find("not a key") != std::string::npos);
  // The sequence: none yet is 0; a number and a newline; anything else is corrupt.
  auto sequence = config::read_sequence(files.sequence);
  CAF_REQUIRE(sequence);
  CAF_CHECK_EQUAL(*sequence, 0u);
  CAF_REQUIRE(config::write_sequence(files.sequence, 18446744073709551615u));
  sequence = config::read_sequence(files.sequence);
  CAF_REQUIRE(sequence);
  CAF_CHECK_EQUAL(*sequence, 18446744073709551615u);
  for (auto bad : {"12", "12\n\n", "x\n", "-1\n", "18446744073709551616\n"}) {
    CAF_REQUIRE(config::write_file_atomically(files.sequence, bad));
    auto refused = config::read_sequence(files.sequence);
    CAF_CHECK(!refused && refused.error().code == errc::corrupt);
  }
}
