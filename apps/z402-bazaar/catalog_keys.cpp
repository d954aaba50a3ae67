// The catalog's signing keys (docs/trust.md §6): the root key, made once and kept offline; the
// online key the server signs with; the keys note, signed by the root, that delegates it. A
// private key is written only to its own file (mode 0600) and never printed; what is printed is
// the public (verifier) key.
#include "commands.hpp"

#include "z402/config/atomic_file.hpp"
#include "z402/config/pem_files.hpp"
#include "z402/config/signing_files.hpp"
#include "z402/core/crypto.hpp"
#include "z402/core/wall_clock.hpp"
#include "z402/trust/statements.hpp"
#include "z402/wire/iso_time.hpp"

#include <iostream>

namespace z402::app {
namespace {

int failed(const char* command, const std::string& why) {
  std::cerr << "z402-bazaar catalog-key " << command << ": " << why << std::endl;
  return 1;
}

/// Writes a new private key to `file` (0600; its directory made when missing), then says `done`
/// and prints the verifier key; refused when the file exists unless `replace`.
int write_key(const char* command, const trust::signer_key& key, const std::filesystem::path& file, bool replace,
              std::string_view done) {
  std::error_code ec;
  if (!replace && std::filesystem::exists(file, ec)) return failed(command, file.string() + " exists; a key is never overwritten without --replace");
  if (file.has_parent_path() && (std::filesystem::create_directories(file.parent_path(), ec), ec))
    return failed(command, "cannot create " + file.parent_path().string() + ": " + ec.message());
  auto text = key.text() + "\n";
  auto written = config::write_file_atomically(file, text);
  crypto::cleanse(text);
  if (!written) return failed(command, written.error().reason);
  std::cerr << done << std::endl;
  std::cout << key.verifier().text() << std::endl;
  return 0;
}

}  // namespace

int catalog_key_root(const std::string& origin, const std::filesystem::path& out) {
  auto key = trust::generate_signer(origin);
  if (!key) return failed("root", "ORIGIN must be a name without spaces or '+', such as bazaar.example.com");
  return write_key("root", *key, out, false,
                   "root key written to " + out.string() + "; keep it offline. Agents pin the verifier key below (z402-discover --root-key)");
}

int catalog_key_online(const config::bazaar_config& cfg, const std::string& origin, bool replace) {
  auto name = origin + "/online-" + std::to_string(system_wall_clock{}.now_ms() / 1000);
  auto key = trust::generate_signer(name);
  if (!key) return failed("online", "ORIGIN must be a name without spaces or '+', such as bazaar.example.com");
  auto file = config::signing_files_in(cfg.data_dir).online_key;
  return write_key("online", *key, file, replace,
                   "online key written to " + file.string() +
                       "; delegate it with the root key (z402-bazaar catalog-key delegate --online KEY), verifier key below");
}

int catalog_key_delegate(const config::bazaar_config& cfg, const std::vector<std::string>& root_files,
                         std::vector<std::string> online, int days, std::filesystem::path out) {
  if (days < 1 || days > 366) return failed("delegate", "--days must be 1 to 366");
  std::vector<trust::signer_key> roots;
  for (auto& f : root_files) {
    if (auto private_ok = config::refuse_readable_key(f, "the root key"); !private_ok) return failed("delegate", private_ok.error().reason);
    auto text = config::read_file(f);
    if (!text) return failed("delegate", text.error().reason);
    auto key = trust::parse_signer(*text, f);
    crypto::cleanse(*text);
    if (!key) return failed("delegate", key.error().reason);
    if (!roots.empty() && key->verifier().name != roots.front().verifier().name)
      return failed("delegate", "every --root must name the same origin (" + roots.front().verifier().name + ")");
    roots.push_back(std::move(*key));
  }
  auto files = config::signing_files_in(cfg.data_dir);
  if (online.empty()) {
    // On the server's own machine: the online key in the data directory.
    auto text = config::read_file(files.online_key);
    if (!text) return failed("delegate", "no --online key given and " + text.error().reason);
    auto key = trust::parse_signer(*text, files.online_key.string());
    crypto::cleanse(*text);
    if (!key) return failed("delegate", key.error().reason);
    online.push_back(key->verifier().text());
  }
  trust::keys_statement keys{roots.front().verifier().name, system_wall_clock{}.now_ms() + days * 86'400'000LL, {}};
  for (auto& v : online) {
    auto key = trust::parse_verifier(v, "--online");
    if (!key) return failed("delegate", key.error().reason);
    if (!key->name.starts_with(keys.origin + "/"))
      return failed("delegate", "the online key " + key->name + " is not named for " + keys.origin + " (ORIGIN/...)");
    keys.online.push_back(std::move(*key));
  }
  if (keys.online.size() > trust::max_online_keys) return failed("delegate", "at most 8 --online keys");
  std::vector<const trust::signer_key*> signers;
  for (auto& r : roots) signers.push_back(&r);
  auto note = trust::sign_note(trust::text_of(keys), signers);
  if (!note) return failed("delegate", note.error().reason);
  if (out.empty()) out = files.keys_note;
  if (auto written = config::write_file_atomically(out, *note); !written) return failed("delegate", written.error().reason);
  std::cerr << "keys note written to " << out.string() << "; it expires " << wire::format_iso_ms(keys.expires_ms)
            << " (a running server reads it within a second)" << std::endl;
  return 0;
}

}  // namespace z402::app
