// z402-bazaar: the discovery catalog server and its operator commands.
#include "../common/cli.hpp"
#include "commands.hpp"

#include <filesystem>
#include <functional>
#include <iostream>
#include <map>

namespace {

using namespace z402;
namespace po = boost::program_options;

constexpr const char* program = "z402-bazaar";

constexpr const char* commands_text =
    "usage: z402-bazaar COMMAND [OPTIONS]\n"
    "\n"
    "The discovery catalog of an x402 facilitator.\n"
    "\n"
    "commands:\n"
    "  serve                            run the catalog server\n"
    "  provider add|list|rotate|remove  manage provider keys\n"
    "  settle-key create                create a rail node's key for POST /discovery/settled\n"
    "  terms                            print the rail's terms every accepts entry must carry\n"
    "  catalog-key root|online|delegate the keys that sign the catalog (docs/trust.md)\n"
    "\n"
    "Each command answers --help; --version prints the version.\n";

constexpr const char* provider_text =
    "usage: z402-bazaar provider add|list|rotate|remove [OPTIONS]\n"
    "\n"
    "  provider add NAME --pay-to ADDR  a new provider; prints its key once, on stdout\n"
    "  provider list                    name, payTo and creation time of every provider\n"
    "  provider rotate NAME             a new key for NAME; the old one stops working\n"
    "  provider remove NAME             removes NAME and its key; its items leave the catalog\n"
    "\n"
    "Each answers --help.\n";

constexpr const char* catalog_key_text =
    "usage: z402-bazaar catalog-key root|online|delegate [OPTIONS]\n"
    "\n"
    "  catalog-key root ORIGIN --out FILE   the root key, named ORIGIN (the catalog's name); keep FILE\n"
    "                                       offline; prints the verifier key agents pin\n"
    "  catalog-key online ORIGIN            the online key the server signs with, in DIR/catalog-online.key;\n"
    "                                       prints its verifier key\n"
    "  catalog-key delegate --root FILE     the keys note, signed by the root key, that delegates online\n"
    "                                       keys, in DIR/catalog-keys.note\n"
    "\n"
    "Each answers --help.\n";

/// --data-dir for every command, --config where the configuration matters.
void data_options(cli::command& cmd, config::bazaar_config& cfg, std::string& config_file, bool with_config) {
  cmd.options.add_options()("data-dir", po::value<std::string>()->value_name("DIR")->notifier([&](const std::string& d) {
    cfg.data_dir = d;
  }),
                            "the data directory (default ./z402-data)");
  if (with_config)
    cmd.options.add_options()("config", po::value(&config_file)->value_name("FILE"),
                              "a JSON configuration file (default DIR/config.json when it exists)");
}

/// <data-dir>/config.json applies when present, so the server and `terms` always agree.
std::optional<int> load_config(const cli::command& cmd, config::bazaar_config& cfg, std::string config_file) {
  auto implicit = cfg.data_dir / "config.json";
  if (config_file.empty() && std::filesystem::exists(implicit)) config_file = implicit;
  if (config_file.empty()) return std::nullopt;
  if (auto applied = config::apply_config_file(cfg, config_file); !applied) return cli::usage_error(cmd, applied.error().reason);
  return std::nullopt;
}

int serve_command(const std::vector<std::string>& args) {
  config::bazaar_config cfg;
  std::string config_file, listen, format = "text", cert, key, cluster_listen, follow;
  std::size_t max_connections = 0;
  cli::command cmd{"z402-bazaar serve", "[OPTIONS]",
                   "Runs the catalog server: HTTP (or HTTPS with a certificate) on the listen address, the\n"
                   "catalog in DIR/catalog.json, provider keys in DIR/providers.json. SIGINT or SIGTERM drain\n"
                   "the connections, save the catalog and exit 0; SIGHUP re-reads the TLS certificate."};
  data_options(cmd, cfg, config_file, true);
  cmd.options.add_options()                                                                              //
      ("listen", po::value(&listen)->value_name("HOST:PORT"), "where to listen (default 127.0.0.1:3000)")  //
      ("tls-cert", po::value(&cert)->value_name("FILE"), "PEM certificate chain: serve HTTPS (with --tls-key)")  //
      ("tls-key", po::value(&key)->value_name("FILE"), "PEM private key, not readable by others")            //
      ("max-connections", po::value(&max_connections)->value_name("N"),
       "client connections open at once (default 3/4 of the fd limit); above it new ones wait")  //
      ("log-format", po::value(&format)->value_name("text|json")->default_value("text"),
       "log lines as text or as JSON objects, on stderr")  //
      ("cluster-listen", po::value(&cluster_listen)->value_name("HOST:PORT"),
       "a primary: publish the catalog's feed for followers here (mutual TLS with the config's cluster "
       "credentials; plain on loopback only without them)")  //
      ("follow", po::value(&follow)->value_name("HOST:PORT"),
       "a follower: serve the catalog of the primary whose feed is there; writes go on to it");
  po::variables_map vm;
  if (auto stop = cli::parse(cmd, args, vm)) return *stop;
  if (format != "text" && format != "json") return cli::usage_error(cmd, "--log-format must be text or json");
  if (cert.empty() != key.empty()) return cli::usage_error(cmd, "--tls-cert and --tls-key go together");
  if (auto stop = load_config(cmd, cfg, config_file)) return *stop;
  if (!listen.empty())
    if (auto set = config::set_listen(cfg, listen); !set) return cli::usage_error(cmd, "--listen: " + set.error().reason);
  if (vm.count("max-connections")) {
    if (max_connections == 0) return cli::usage_error(cmd, "--max-connections must be at least 1");
    cfg.max_connections = max_connections;
  }
  if (!cert.empty()) {
    cfg.tls_certificate = cert;
    cfg.tls_key = key;
  }
  if (!cluster_listen.empty() && !follow.empty()) return cli::usage_error(cmd, "--cluster-listen and --follow exclude each other");
  // A primary may publish on port 0 (tests: it logs the port it got); a follower needs a real one.
  auto address_of = [&](const std::string& text, const std::string& option, bool any_port) {
    auto where = config::parse_listen_address(text, any_port);
    if (!where) cli::usage_error(cmd, option + ": " + where.error().reason);
    return where;
  };
  if (!cluster_listen.empty()) {
    auto where = address_of(cluster_listen, "--cluster-listen", true);
    if (!where) return cli::usage_exit;
    cfg.cluster_listen = *where;
  }
  if (!follow.empty()) {
    auto where = address_of(follow, "--follow", false);
    if (!where) return cli::usage_exit;
    cfg.follow = *where;
  }
  return app::serve(cfg, format == "json" ? telemetry::log_format::json : telemetry::log_format::text);
}

int terms(const std::vector<std::string>& args) {
  config::bazaar_config cfg;
  std::string config_file;
  cli::command cmd{"z402-bazaar terms", "[OPTIONS]",
                   "Prints, as JSON, the rail's terms (scheme, network, asset, extra, termsVersion) that every\n"
                   "accepts entry of a declaration must carry: give it to providers (the demo's --terms)."};
  data_options(cmd, cfg, config_file, true);
  po::variables_map vm;
  if (auto stop = cli::parse(cmd, args, vm)) return *stop;
  if (auto stop = load_config(cmd, cfg, config_file)) return *stop;
  return app::terms_command(cfg);
}

int settle_key(const std::vector<std::string>& args) {
  config::bazaar_config cfg;
  std::string config_file, action;
  cli::command cmd{"z402-bazaar settle-key", "create [OPTIONS]",
                   "Creates a settle key: the rail node presents it on POST /discovery/settled. It is printed\n"
                   "once, on stdout, and stored only as its SHA-256."};
  data_options(cmd, cfg, config_file, false);
  cmd.operands.add_options()("action", po::value(&action)->required(), "create");
  cmd.positional.add("action", 1);
  po::variables_map vm;
  if (auto stop = cli::parse(cmd, args, vm)) return *stop;
  if (action != "create") return cli::usage_error(cmd, "unknown action '" + action + "'; expected create");
  return app::settle_key_create(cfg);
}

int catalog_key(const std::vector<std::string>& args) {
  if (args.empty()) return std::cerr << "z402-bazaar catalog-key: expected root, online or delegate (see z402-bazaar catalog-key --help)\n", 2;
  if (args[0] == "--help" || args[0] == "-h") return std::cout << catalog_key_text, 0;
  if (args[0] == "--version") return cli::print_version(program);
  std::vector<std::string> rest{args.begin() + 1, args.end()};
  config::bazaar_config cfg;
  std::string config_file, origin, out;
  std::vector<std::string> roots, online;
  int days = 90;
  auto& action = args[0];
  cli::command cmd{"z402-bazaar catalog-key " + action, "", ""};
  if (action == "root" || action == "online") {
    cmd.operands.add_options()("origin", po::value(&origin)->required()->value_name("ORIGIN"),
                               "the catalog's name, such as bazaar.example.com (no spaces, no '+')");
    cmd.positional.add("origin", 1);
  }
  if (action == "root") {
    cmd.synopsis = "ORIGIN --out FILE";
    cmd.summary = "Creates the catalog's root key, named ORIGIN, in FILE (mode 0600; an existing file is refused). Keep it\n"
                  "offline: it is needed only to delegate online keys. Prints the verifier key on stdout: what agents pin\n"
                  "with z402-discover --root-key.";
    cmd.options.add_options()("out", po::value(&out)->required()->value_name("FILE"), "where the private key is written");
  } else if (action == "online") {
    cmd.synopsis = "ORIGIN [OPTIONS]";
    cmd.summary = "Creates the online key the server signs catalog notes with, in DIR/catalog-online.key (mode 0600), and\n"
                  "prints its verifier key. Rotating: --replace, then delegate the new key; a running server signs with\n"
                  "it once the keys note names it.";
    data_options(cmd, cfg, config_file, false);
    cmd.options.add_options()("replace", "replace an existing online key");
  } else if (action == "delegate") {
    cmd.synopsis = "--root FILE [--root FILE] [--online KEY]... [OPTIONS]";
    cmd.summary = "Signs the keys note with the root key: it names the online keys (default: the one in\n"
                  "DIR/catalog-online.key) and expires after --days. Written to DIR/catalog-keys.note (or --out); a\n"
                  "running server reads it within a second. Two --root (the same ORIGIN): a root key's rotation, which\n"
                  "agents pinning either accept.";
    data_options(cmd, cfg, config_file, false);
    cmd.options.add_options()                                                                                      //
        ("root", po::value(&roots)->required()->value_name("FILE"), "the root key's file (at most two)")           //
        ("online", po::value(&online)->value_name("KEY"), "an online verifier key to delegate (at most 8)")        //
        ("days", po::value(&days)->value_name("N"), "the keys note's life in days (1 to 366; default 90)")          //
        ("out", po::value(&out)->value_name("FILE"), "where the keys note is written (default DIR/catalog-keys.note)");
  } else {
    return std::cerr << "z402-bazaar catalog-key: unknown action '" << action
                     << "'; expected root, online or delegate (see z402-bazaar catalog-key --help)\n",
           2;
  }
  po::variables_map vm;
  if (auto stop = cli::parse(cmd, rest, vm)) return *stop;
  if (action == "root") return app::catalog_key_root(origin, out);
  if (action == "online") return app::catalog_key_online(cfg, origin, vm.count("replace") > 0);
  if (roots.size() > 2) return cli::usage_error(cmd, "at most two --root");
  return app::catalog_key_delegate(cfg, roots, online, days, out);
}

int provider(const std::vector<std::string>& args) {
  if (args.empty()) return std::cerr << "z402-bazaar provider: expected add, list, rotate or remove (see z402-bazaar provider --help)\n", 2;
  if (args[0] == "--help" || args[0] == "-h") return std::cout << provider_text, 0;
  if (args[0] == "--version") return cli::print_version(program);
  std::vector<std::string> rest{args.begin() + 1, args.end()};
  config::bazaar_config cfg;
  std::string config_file, name, pay_to;
  auto& action = args[0];
  cli::command cmd{"z402-bazaar provider " + action, "", ""};
  data_options(cmd, cfg, config_file, false);
  if (action == "list") {
    cmd.synopsis = "[OPTIONS]";
    cmd.summary = "Lists every provider: name, payTo and when it was added (keys are never shown again).";
  } else if (action == "add" || action == "rotate" || action == "remove") {
    cmd.synopsis = action == "add" ? "NAME --pay-to ADDR [OPTIONS]" : "NAME [OPTIONS]";
    cmd.summary = action == "add"      ? "Adds a provider and prints its new key once, on stdout (stored only as its SHA-256)."
                  : action == "rotate" ? "Gives NAME a new key, printed once on stdout; the old key stops working within 1 s."
                                       : "Removes NAME and its key; its items leave the catalog.";
    cmd.operands.add_options()("name", po::value(&name)->required()->value_name("NAME"), "the provider's name");
    cmd.positional.add("name", 1);
    if (action == "add")
      cmd.options.add_options()("pay-to", po::value(&pay_to)->required()->value_name("ADDR"),
                                "the address its payments go to (its payTo)");
  } else {
    return std::cerr << "z402-bazaar provider: unknown action '" << action
                     << "'; expected add, list, rotate or remove (see z402-bazaar provider --help)\n",
           2;
  }
  po::variables_map vm;
  if (auto stop = cli::parse(cmd, rest, vm)) return *stop;
  if (action == "list") return app::provider_list(cfg);
  if (action == "add") return app::provider_add(cfg, name, pay_to);
  if (action == "rotate") return app::provider_rotate(cfg, name);
  return app::provider_remove(cfg, name);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args{argv + 1, argv + argc};
  if (args.empty()) return std::cerr << "z402-bazaar: no command (see z402-bazaar --help)\n", 2;
  if (args[0] == "--help" || args[0] == "-h") return std::cout << commands_text, 0;
  if (args[0] == "--version") return cli::print_version(program);
  static const std::map<std::string, std::function<int(const std::vector<std::string>&)>> commands{
      {"serve", serve_command}, {"provider", provider}, {"settle-key", settle_key}, {"terms", terms},
      {"catalog-key", catalog_key}};
  auto it = commands.find(args[0]);
  if (it == commands.end())
    return std::cerr << "z402-bazaar: unknown command '" << args[0] << "' (see z402-bazaar --help)\n", 2;
  return it->second({args.begin() + 1, args.end()});
}
