// z402-bazaar: the discovery catalog server and its operator commands.
#include "commands.hpp"

#include <filesystem>
#include <iostream>

namespace {

constexpr const char* usage =
    "usage:\n"
    "  z402-bazaar serve [--listen HOST:PORT] [--data-dir DIR] [--config FILE]\n"
    "  z402-bazaar provider add NAME --pay-to ADDR [--data-dir DIR]\n"
    "  z402-bazaar provider list|rotate NAME|remove NAME [--data-dir DIR]\n"
    "  z402-bazaar settle-key create [--data-dir DIR]\n"
    "  z402-bazaar terms [--data-dir DIR] [--config FILE]\n";

int usage_error(const std::string& why) {
  std::cerr << "z402-bazaar: " << why << "\n" << usage;
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args{argv + 1, argv + argc};
  if (args.empty() || args[0] == "--help" || args[0] == "-h") return args.empty() ? usage_error("no command") : (std::cout << usage, 0);
  z402::config::bazaar_config cfg;
  std::string listen, config_file;
  std::vector<std::string> rest;
  for (std::size_t i = 1; i < args.size(); ++i) {
    auto& a = args[i];
    if (a == "--listen" || a == "--data-dir" || a == "--config") {
      if (i + 1 >= args.size()) return usage_error(a + " needs a value");
      auto& v = args[++i];
      if (a == "--listen") listen = v;
      else if (a == "--data-dir") cfg.data_dir = v;
      else config_file = v;
    } else {
      rest.push_back(a);
    }
  }
  // <data-dir>/config.json applies when present, so the server and `terms` always agree.
  auto implicit = cfg.data_dir / "config.json";
  if (config_file.empty() && std::filesystem::exists(implicit)) config_file = implicit;
  if (!config_file.empty())
    if (auto err = z402::config::apply_config_file(cfg, config_file)) return usage_error(*err);
  if (!listen.empty())
    if (auto err = z402::config::set_listen(cfg, listen)) return usage_error(*err);
  auto& cmd = args[0];
  if (cmd == "serve") return rest.empty() ? z402::app::serve(cfg) : usage_error("unexpected argument " + rest[0]);
  if (cmd == "provider") return z402::app::provider_command(cfg, rest);
  if (cmd == "settle-key") return z402::app::settle_key_command(cfg, rest);
  if (cmd == "terms") return rest.empty() ? z402::app::terms_command(cfg) : usage_error("unexpected argument " + rest[0]);
  return usage_error("unknown command " + cmd);
}
