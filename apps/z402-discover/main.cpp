// z402-discover: which paid resource fits an intent, chosen on this machine. It reads the
// whole public list (never /discovery/search: the intent never leaves the machine), ranks it
// locally and prints terminal-safe lines and a pick.
//   exit 0: a pick; 1: pick: none; 2: usage; 3: the catalog could not be read; 4-10: a signed
//   catalog was refused, one exit code per check (trust/verification.hpp); 11: the pick (or the
//   URL `verify` was given) is not bound to its origin (agent/origin_binding.hpp) and that was
//   required.
#include "../common/cli.hpp"
#include "z402/agent/catalog_reader.hpp"
#include "z402/agent/discover.hpp"
#include "z402/agent/private_mcp.hpp"
#include "z402/agent/signed_reader.hpp"
#include "z402/config/atomic_file.hpp"
#include "z402/core/wall_clock.hpp"
#include "z402/rules/text.hpp"
#include "z402/wire/json.hpp"

#include <boost/json.hpp>

#include <cstdlib>
#include <variant>
#include <filesystem>
#include <iostream>

namespace {

using namespace z402;
namespace po = boost::program_options;

constexpr std::size_t max_message_bytes = 1u << 20;
constexpr int not_origin_verified_exit = 11;

/// Where the catalog comes from: signed (a root key pinned) or not.
struct trust_options {
  std::string config, root_key, mirror, state_file;
};

/// The default config file: $XDG_CONFIG_HOME/z402-discover/config.json, else ~/.config/...
std::filesystem::path default_config_file() {
  if (auto* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg) return std::filesystem::path{xdg} / "z402-discover" / "config.json";
  auto* home = std::getenv("HOME");
  return std::filesystem::path{home && *home ? home : "."} / ".config" / "z402-discover" / "config.json";
}

/// Fills what the command line left empty from the config file (`--config`, or the default one
/// when it exists); the error names the file and the key at fault.
expected<void> apply_config(trust_options& t) {
  auto file = t.config.empty() ? default_config_file() : std::filesystem::path{t.config};
  auto text = config::read_file(file);
  if (!text) return t.config.empty() && text.error().code == errc::not_found ? expected<void>{} : text.error();
  auto doc = wire::parse_strict(*text, 4);
  if (!doc || !doc->is_object()) return refused("config", file.string() + " is not a JSON object");
  for (auto& [key, value] : doc->get_object()) {
    std::string* into = key == "rootKey" ? &t.root_key : key == "mirror" ? &t.mirror : key == "stateFile" ? &t.state_file : nullptr;
    if (!into) return refused(key, file.string() + ": unknown key " + std::string{key} + " (rootKey, mirror, stateFile)");
    if (!value.is_string()) return refused(key, file.string() + ": " + std::string{key} + " must be a string");
    if (into->empty()) *into = value.get_string();
  }
  return {};
}

void add_trust_options(cli::command& cmd, trust_options& t) {
  cmd.options.add_options()                                                                                       //
      ("config", po::value(&t.config)->value_name("FILE"),
       "a JSON file with rootKey, mirror and stateFile (default $XDG_CONFIG_HOME/z402-discover/config.json when it exists); "
       "options given here win")  //
      ("root-key", po::value(&t.root_key)->value_name("KEY"),
       "the catalog's root verifier key (z402-bazaar catalog-key root): read the signed catalog and check it")  //
      ("mirror", po::value(&t.mirror)->value_name("URL"), "with --root-key: read the catalog's bytes from URL/<sha256>.json")  //
      ("state-file", po::value(&t.state_file)->value_name("FILE"),
       "with --root-key: what was seen of each catalog (default $XDG_STATE_HOME/z402-discover/catalogs.json)");
}

/// How a pick is bound to its origin.
struct origin_options {
  bool require = false, allow_private = false;
};

/// `with_require`: the command picks (verify always answers 11 for an unbound listing).
void add_origin_options(cli::command& cmd, origin_options& o, bool with_require) {
  if (with_require)
    cmd.options.add_options()("require-origin", po::bool_switch(&o.require),
                              "a pick whose origin does not name its payTo (or whose live 402 asks another) is an error: exit 11");
  cmd.options.add_options()("allow-private-origin", po::bool_switch(&o.allow_private),
                            "read origins at loopback and private addresses too (local testing only); --insecure never "
                            "applies to origins");
}

agent::origin_policy policy_of(const origin_options& o) {
  agent::origin_policy p;
  p.allow_private = o.allow_private;
  return p;
}

/// What every command that reads the catalog is told: where it is, how it is trusted, how an
/// origin is read.
struct reading_options {
  std::string discovery;
  trust_options trust;
  origin_options origin;
};

void add_reading_options(cli::command& cmd, reading_options& r, bool picks) {
  cli::catalog_options(cmd, r.discovery);
  add_trust_options(cmd, r.trust);
  add_origin_options(cmd, r.origin, picks);
}

/// Where the catalog comes from, once the config file filled what the command line left out:
/// signed (a root key pinned) or not (nullopt); or the usage error that says why neither.
expected<std::optional<agent::signed_source>> source_of(trust_options t, const std::string& discovery) {
  if (auto configured = apply_config(t); !configured) return configured.error();
  if (t.root_key.empty()) {
    if (!t.mirror.empty() || !t.state_file.empty()) return refused("--mirror", "--mirror and --state-file go with --root-key");
    return std::optional<agent::signed_source>{};
  }
  auto root = trust::parse_verifier(t.root_key, "--root-key");
  if (!root) return root.error();
  return std::optional{agent::signed_source{std::move(*root), discovery, t.mirror,
                                            t.state_file.empty() ? agent::default_state_file() : std::filesystem::path{t.state_file}}};
}

/// The catalog as the options say to read it: signed, or the public list. A refusal is one line
/// in `refusal` (and no items); without a pinned key, stderr says once that what was read is not
/// verified.
agent::catalog_read read(http::client& client, const std::optional<agent::signed_source>& source, const std::string& discovery,
                         const agent::read_limits& limits, std::optional<trust::refusal>* refusal) {
  if (!source) {
    // Said of a catalog read (a failure stays one line), once a run.
    auto unsigned_read = agent::read_catalog(client, discovery, limits);
    static bool said = false;
    if (!unsigned_read.error && !std::exchange(said, true))
      std::cerr << "z402-discover: the catalog is not verified (no --root-key pinned)" << std::endl;
    return unsigned_read;
  }
  auto signed_read = agent::read_signed_catalog(client, *source, limits, system_wall_clock{}.now_ms());
  if (signed_read.refused) {
    signed_read.catalog.error = signed_read.refused->line();
    if (refusal) *refusal = std::move(signed_read.refused);
  }
  return std::move(signed_read.catalog);
}

/// The catalog for a command that reads it once: the items, or the exit code of why not, once
/// its one line is on stderr.
std::variant<agent::catalog_read, int> read_once(http::client& client, const std::optional<agent::signed_source>& source,
                                                 const std::string& discovery, const agent::read_limits& limits) {
  std::optional<trust::refusal> refusal;
  auto catalog = read(client, source, discovery, limits, &refusal);
  if (refusal) {
    std::cerr << "z402-discover: " << refusal->line() << std::endl;
    return trust::exit_code_of(refusal->failed);
  }
  if (catalog.error) {
    std::cerr << "z402-discover: could not read the catalog: " << *catalog.error << std::endl;
    return 3;
  }
  return catalog;
}

/// `z402-discover mcp`: newline-delimited JSON-RPC on stdin and stdout (MCP's stdio transport).
int serve_mcp(const std::vector<std::string>& args) {
  reading_options r;
  cli::command cmd{"z402-discover mcp", "--discovery URL [OPTIONS]",
                   "The agent's private MCP server, over stdio: tools discover (intent, maxAmount, limit) and\n"
                   "get_resource (url, method or toolName). It reads the catalog's public list under the same bounds\n"
                   "as z402-discover (re-read at most once a minute) and ranks it on this machine: what the agent\n"
                   "looks for is never sent; discover's pick is checked against its origin as z402-discover's is.\n"
                   "Messages are JSON-RPC, one per line; nothing else is written to stdout."};
  add_reading_options(cmd, r, true);
  po::variables_map vm;
  if (auto stop = cli::parse(cmd, args, vm)) return *stop;
  auto source = source_of(r.trust, r.discovery);
  if (!source) return cli::usage_error(cmd, source.error().reason);
  http::client client{!vm.count("insecure")};
  // Origins are the public internet's: --insecure is for the catalog, never for them.
  http::client origin_client;
  auto now = [] { return system_wall_clock{}.now_ms(); };
  agent::catalog_copy copy{[&] { return read(client, *source, r.discovery, agent::read_limits{}, nullptr); }, now};
  auto policy = policy_of(r.origin);
  auto server = agent::make_private_mcp(copy, now,
                                        {[&origin_client, policy](const boost::json::object& item) {
                                           return agent::verify_origin(origin_client, item, policy);
                                         },
                                         r.origin.require});
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto outcome = line.size() > max_message_bytes
                       ? mcp::server::outcome{mcp::error_response(nullptr, {mcp::rpc_code::invalid_request, "message too large", {}}), true}
                       : server.handle(line);
    if (outcome.body) std::cout << outcome.text() << "\n" << std::flush;
  }
  return 0;
}

/// `z402-discover verify URL`: the listings of one resource in the catalog, each checked against
/// its origin.
int verify(const std::vector<std::string>& args) {
  reading_options r;
  std::string url, method;
  cli::command cmd{"z402-discover verify", "URL --discovery URL [--method METHOD] [OPTIONS]",
                   "Whether the catalog's listing of one resource is bound to its origin: the origin's\n"
                   "/.well-known/x402, read over HTTPS (256 KiB, 10 s, at most 3 redirects, each to the same origin,\n"
                   "no userinfo, no loopback or private address), names the listing's payTo for it, and the\n"
                   "resource's live 402 asks for the same payTo. One line per listing (every method, or --method's).\n"
                   "Exit 0 when every listing is origin-verified, 1 when the catalog does not list URL, 11 when one\n"
                   "is not origin-verified, 2, 3 and 4-10 as z402-discover's."};
  add_reading_options(cmd, r, false);
  cmd.options.add_options()                                                                  //
      ("method", po::value(&method)->value_name("METHOD"), "only the listing of this method")  //
      ("json", "print JSON instead of text");
  cmd.operands.add_options()("url", po::value(&url)->required(), "the resource, as listed");
  cmd.positional.add("url", 1);
  po::variables_map vm;
  if (auto stop = cli::parse(cmd, args, vm)) return *stop;
  auto source = source_of(r.trust, r.discovery);
  if (!source) return cli::usage_error(cmd, source.error().reason);
  auto policy = policy_of(r.origin);
  // The URL as given first: one with userinfo is never listed (the catalog drops it), and is
  // refused for what it is, not for being unlisted.
  if (auto refused = agent::url_refusal(url, policy)) {
    std::cerr << "z402-discover: " << refused->line() << std::endl;
    return not_origin_verified_exit;
  }
  http::client client{!vm.count("insecure")};
  auto read = read_once(client, *source, r.discovery, agent::read_limits{});
  if (auto* code = std::get_if<int>(&read)) return *code;
  auto& catalog = std::get<agent::catalog_read>(read);
  http::client origin_client;
  bool as_json = vm.count("json") > 0, all_verified = true;
  std::size_t listings = 0;
  boost::json::array checked;
  std::string text;
  for (auto& item : catalog.items) {
    auto resource = item.if_contains("resource");
    auto line = agent::line_of(item, 0, 0);
    if (!resource || !resource->is_string() || resource->get_string() != url) continue;
    if (!method.empty() && line.method != method) continue;
    ++listings;
    auto verdict = agent::verify_origin(origin_client, item, policy);
    all_verified = all_verified && verdict.verified;
    text += line.method + " " + line.url + "  " + verdict.line() + "\n";
    boost::json::object o{{"method", line.method}, {"url", line.url}, {"verified", verdict.verified}};
    if (!verdict.verified) {
      o["check"] = verdict.check;
      o["reason"] = verdict.reason;
    }
    checked.push_back(std::move(o));
  }
  if (listings == 0) {
    std::cerr << "z402-discover: the catalog does not list " << rules::terminal_safe(url)
              << (method.empty() ? "" : " for " + rules::terminal_safe(method)) << std::endl;
    return 1;
  }
  std::cout << (as_json ? boost::json::serialize(boost::json::object{{"listings", std::move(checked)}}) + "\n" : text);
  return all_verified ? 0 : not_origin_verified_exit;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string_view{argv[1]} == "mcp") return serve_mcp({argv + 2, argv + argc});
  if (argc > 1 && std::string_view{argv[1]} == "verify") return verify({argv + 2, argv + argc});
  reading_options r;
  std::string intent;
  agent::read_limits limits;
  cli::command cmd{"z402-discover", "--discovery URL --intent TEXT [OPTIONS]\n       z402-discover mcp --discovery URL [OPTIONS]\n"
                                    "       z402-discover verify URL --discovery URL [OPTIONS]",
                   "Reads the catalog at URL page by page (60 s and 32 MiB for the whole run, at most 1000\n"
                   "resources in 100 pages), ranks it for the intent on this machine with the server's search (the\n"
                   "intent is never sent), prints it and a pick.\n"
                   "With --root-key it reads the signed catalog instead, and ranks it only once the keys note, the\n"
                   "catalog note, the bytes and this agent's history of that catalog all check (docs/trust.md).\n"
                   "Before the pick is printed, its origin is asked (as `verify` does): the pick line ends with\n"
                   "origin-verified, or not origin-verified and why.\n"
                   "Exit 0 with a pick, 1 with pick: none, 2 on usage errors, 3 when the catalog could not be read;\n"
                   "a signed catalog refused: 4 keys-signature, 5 keys-expired, 6 catalog-signature, 7 catalog-expired,\n"
                   "8 catalog-bytes, 9 rollback, 10 equivocation; 11 a pick not origin-verified with --require-origin."};
  add_reading_options(cmd, r, true);
  cmd.options.add_options()                                                                         //
      ("intent", po::value(&intent)->required()->value_name("TEXT"), "what the agent wants to do")    //
      ("json", "print JSON instead of text")                                                          //
      ("explain", "show under each resource which intent words matched it, how and where")                                                          //
      ("limit-resources", po::value(&limits.max_resources)->value_name("N")->notifier([](std::size_t n) {
         if (n < 1 || n > 1000)
           throw po::validation_error(po::validation_error::invalid_option_value, "limit-resources", std::to_string(n));
       }),
       "read at most N resources (1 to 1000; default 1000)");
  po::variables_map vm;
  std::vector<std::string> args{argv + 1, argv + argc};
  if (auto stop = cli::parse(cmd, args, vm)) return *stop;
  bool as_json = vm.count("json") > 0, insecure = vm.count("insecure") > 0;
  if (intent.find_first_not_of(" \t") == std::string::npos) return cli::usage_error(cmd, "--intent must say something");
  auto source = source_of(r.trust, r.discovery);
  if (!source) return cli::usage_error(cmd, source.error().reason);

  http::client client{!insecure};
  auto read = read_once(client, *source, r.discovery, limits);
  if (auto* code = std::get_if<int>(&read)) return *code;
  auto& catalog = std::get<agent::catalog_read>(read);
  auto ranked = agent::rank(catalog.items, intent, vm.count("explain") > 0);
  auto now = system_wall_clock{}.now_ms();
  std::vector<agent::resource_line> lines;
  lines.reserve(catalog.items.size());
  for (auto pos : ranked.order)
    lines.push_back(agent::line_of(catalog.items[pos], now, ranked.scores[pos], ranked.why.empty() ? std::string{} : ranked.why[pos]));
  bool picked = ranked.pick.has_value();
  agent::origin_verdict origin;
  if (picked) {
    http::client origin_client;  // origins are the public internet's: --insecure is for the catalog only
    origin = agent::verify_origin(origin_client, catalog.items[*ranked.pick], policy_of(r.origin));
  }
  std::cout << (as_json ? agent::render_json(lines, picked, origin) : agent::render_text(lines, picked, origin));
  if (catalog.capped)
    std::cerr << "z402-discover: read the first " << catalog.items.size() << " resources (" << catalog.pages
              << " pages): the limit of one run" << std::endl;
  if (picked && r.origin.require && !origin.verified) return not_origin_verified_exit;
  return picked ? 0 : 1;
}
