#include "z402/config/signing_files.hpp"

#include "z402/config/atomic_file.hpp"
#include "z402/config/pem_files.hpp"
#include "z402/core/crypto.hpp"
#include "z402/wire/iso_time.hpp"

#include <charconv>

namespace z402::config {
namespace {

error file_refused(const std::filesystem::path& file, std::string reason) { return refused(file.string(), file.string() + ": " + reason); }

}  // namespace

signing_files signing_files_in(const std::filesystem::path& data_dir) {
  return {data_dir / "catalog-online.key", data_dir / "catalog-keys.note", data_dir / "catalog.sequence"};
}

expected<signing_keys> load_signing_keys(const signing_files& files, std::int64_t now_ms) {
  if (auto private_ok = refuse_readable_key(files.online_key, "the catalog's online key", files.online_key.string()); !private_ok)
    return private_ok.error();
  auto key_text = read_file(files.online_key);
  if (!key_text) return key_text.error();
  auto online = trust::parse_signer(*key_text, files.online_key.string());
  crypto::cleanse(*key_text);
  if (!online) return online.error();
  auto note = read_file(files.keys_note);
  if (!note) return note.error();
  // The root key is kept offline, so its signature cannot be checked here; the agents check it.
  auto text = trust::unverified_text(*note);
  if (!text) return file_refused(files.keys_note, "is not a signed note");
  auto keys = trust::parse_keys_statement(*text);
  if (!keys) return file_refused(files.keys_note, keys.error().reason);
  bool delegated = false;
  for (auto& k : keys->online) delegated = delegated || k.text() == online->verifier().text();
  if (!delegated)
    return file_refused(files.keys_note, "does not name the online key " + online->verifier().text() +
                                             " (sign a new one: z402-bazaar catalog-key delegate)");
  if (keys->expires_ms <= now_ms) return file_refused(files.keys_note, "expired at " + wire::format_iso_ms(keys->expires_ms));
  return signing_keys{std::move(*online), std::move(*note), std::move(*keys)};
}

expected<std::uint64_t> read_sequence(const std::filesystem::path& file) {
  auto text = read_file(file);
  if (!text) return text.error().code == errc::not_found ? expected<std::uint64_t>{std::uint64_t{0}} : text.error();
  std::uint64_t n = 0;
  auto* end = text->data() + text->size();
  auto [at, ec] = std::from_chars(text->data(), end, n);
  if (ec != std::errc{} || at + 1 != end || *at != '\n')
    return error{errc::corrupt, file.string(), file.string() + " does not hold a sequence number"};
  return n;
}

expected<void> write_sequence(const std::filesystem::path& file, std::uint64_t sequence) {
  return write_file_atomically(file, std::to_string(sequence) + "\n");
}

}  // namespace z402::config
