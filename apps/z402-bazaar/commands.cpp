// Operator commands: provider keys and the rail's terms. They work while a server runs on the
// same data dir: the keyring file is edited under a lock and the server re-reads it.
#include "commands.hpp"

#include "z402/auth/keyring.hpp"
#include "z402/catalog/wall_clock.hpp"
#include "z402/wire/iso_time.hpp"

#include <boost/json/serialize.hpp>

#include <iostream>

namespace z402::app {

int provider_command(const config::bazaar_config& cfg, const std::vector<std::string>& args) {
  auto fail = [](const std::string& why, int code) {
    std::cerr << "z402-bazaar provider: " << why << std::endl;
    return code;
  };
  if (args.empty()) return fail("expected add, list, rotate or remove", 2);
  try {
    auto& sub = args[0];
    if (sub == "list" && args.size() == 1) {
      auto k = auth::load_keyring(auth::keyring_path(cfg.data_dir));
      for (auto& p : k.providers)
        std::cout << p.name << "\t" << p.pay_to << "\t" << wire::format_iso_ms(p.created_ms) << "\n";
      return 0;
    }
    if (sub == "add") {
      std::string name, pay_to;
      for (std::size_t i = 1; i < args.size(); ++i) {
        if (args[i] == "--pay-to" && i + 1 < args.size()) pay_to = args[++i];
        else if (name.empty()) name = args[i];
        else return fail("unexpected argument " + args[i], 2);
      }
      if (name.empty() || pay_to.empty()) return fail("usage: provider add NAME --pay-to ADDR", 2);
      auto key = auth::add_provider(cfg.data_dir, name, pay_to, catalog::system_wall_clock{}.now_ms());
      std::cerr << "provider " << name << " added; its key is shown once, below" << std::endl;
      std::cout << key << std::endl;
      return 0;
    }
    if (sub == "rotate" && args.size() == 2) {
      auto key = auth::rotate_provider_key(cfg.data_dir, args[1]);
      std::cerr << "provider " << args[1] << " has a new key; the old one no longer works" << std::endl;
      std::cout << key << std::endl;
      return 0;
    }
    if (sub == "remove" && args.size() == 2) {
      auth::remove_provider(cfg.data_dir, args[1]);
      std::cerr << "provider " << args[1] << " removed; its items leave the catalog" << std::endl;
      return 0;
    }
    return fail("usage: provider add NAME --pay-to ADDR | list | rotate NAME | remove NAME", 2);
  } catch (const std::exception& e) {
    return fail(e.what(), 1);
  }
}

int settle_key_command(const config::bazaar_config& cfg, const std::vector<std::string>& args) {
  if (args.size() != 1 || args[0] != "create") {
    std::cerr << "z402-bazaar settle-key: usage: settle-key create [--data-dir DIR]" << std::endl;
    return 2;
  }
  try {
    auto key = auth::create_settle_key(cfg.data_dir, catalog::system_wall_clock{}.now_ms());
    std::cerr << "settle key created; give it to the rail node that reports settlements; it is shown once, below"
              << std::endl;
    std::cout << key << std::endl;
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "z402-bazaar settle-key: " << e.what() << std::endl;
    return 1;
  }
}

int terms_command(const config::bazaar_config& cfg) {
  std::cout << boost::json::serialize(config::to_json(cfg.terms)) << std::endl;
  return 0;
}

}  // namespace z402::app
