// Operator commands: provider keys and the rail's terms. They work while a server runs on the
// same data dir: the keyring file is edited under a lock and the server re-reads it.
#include "commands.hpp"

#include "z402/auth/keyring.hpp"
#include "z402/core/wall_clock.hpp"
#include "z402/wire/iso_time.hpp"

#include <boost/json/serialize.hpp>

#include <iostream>

namespace z402::app {
namespace {

/// A failure (an unreadable keyring, an unknown provider) is one line and exit 1.
int failed(const char* command, const error& why) {
  std::cerr << "z402-bazaar " << command << ": " << why.reason << std::endl;
  return 1;
}

}  // namespace

int provider_list(const config::bazaar_config& cfg) {
  auto k = auth::load_keyring(auth::keyring_path(cfg.data_dir));
  if (!k) return failed("provider list", k.error());
  for (auto& p : k->providers) std::cout << p.name << "\t" << p.pay_to << "\t" << wire::format_iso_ms(p.created_ms) << "\n";
  return 0;
}

int provider_add(const config::bazaar_config& cfg, const std::string& name, const std::string& pay_to) {
  auto key = auth::add_provider(cfg.data_dir, name, pay_to, system_wall_clock{}.now_ms());
  if (!key) return failed("provider add", key.error());
  std::cerr << "provider " << name << " added; its key is shown once, below" << std::endl;
  std::cout << *key << std::endl;
  return 0;
}

int provider_rotate(const config::bazaar_config& cfg, const std::string& name) {
  auto key = auth::rotate_provider_key(cfg.data_dir, name);
  if (!key) return failed("provider rotate", key.error());
  std::cerr << "provider " << name << " has a new key; the old one no longer works" << std::endl;
  std::cout << *key << std::endl;
  return 0;
}

int provider_remove(const config::bazaar_config& cfg, const std::string& name) {
  if (auto removed = auth::remove_provider(cfg.data_dir, name); !removed) return failed("provider remove", removed.error());
  std::cerr << "provider " << name << " removed; its items leave the catalog" << std::endl;
  return 0;
}

int settle_key_create(const config::bazaar_config& cfg) {
  auto key = auth::create_settle_key(cfg.data_dir, system_wall_clock{}.now_ms());
  if (!key) return failed("settle-key create", key.error());
  std::cerr << "settle key created; give it to the rail node that reports settlements; it is shown once, below" << std::endl;
  std::cout << *key << std::endl;
  return 0;
}

int terms_command(const config::bazaar_config& cfg) {
  std::cout << boost::json::serialize(config::to_json(cfg.terms)) << std::endl;
  return 0;
}

}  // namespace z402::app
