// z402-discover: which paid resource fits an intent, chosen on this machine. It reads the
// whole public list (never /discovery/search: the intent never leaves the machine), ranks it
// locally and prints terminal-safe lines and a pick.
//   exit 0: a pick; 1: pick: none; 2: usage; 3: the catalog could not be read.
#include "z402/agent/catalog_reader.hpp"
#include "z402/agent/discover.hpp"
#include "z402/catalog/wall_clock.hpp"

#include <charconv>
#include <iostream>

namespace {

using namespace z402;

constexpr const char* usage =
    "usage: z402-discover --discovery URL --intent \"...\" [--json] [--limit-resources N] [--insecure]\n"
    "  Reads the catalog at URL page by page (60 s and 32 MiB for the whole run, at most 1000\n"
    "  resources in 100 pages), ranks it by word overlap with the intent, prints it and a pick.\n"
    "  --insecure skips TLS certificate checks: local testing only.\n"
    "  exit 0 with a pick, 1 with pick: none, 2 on usage errors, 3 when the catalog could not be read\n";

int usage_error(const std::string& why) {
  std::cerr << "z402-discover: " << why << "\n" << usage;
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args{argv + 1, argv + argc};
  std::string discovery, intent;
  bool as_json = false, insecure = false, has_intent = false;
  agent::read_limits limits;
  for (std::size_t i = 0; i < args.size(); ++i) {
    auto& a = args[i];
    if (a == "--help" || a == "-h") return std::cout << usage, 0;
    if (a == "--json") { as_json = true; continue; }
    if (a == "--insecure") { insecure = true; continue; }
    if (a != "--discovery" && a != "--intent" && a != "--limit-resources") return usage_error("unknown argument " + a);
    if (i + 1 >= args.size()) return usage_error(a + " needs a value");
    auto& v = args[++i];
    if (a == "--discovery") discovery = v;
    else if (a == "--intent") { intent = v; has_intent = true; }
    else {
      std::size_t n = 0;
      auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
      if (ec != std::errc{} || end != v.data() + v.size() || n < 1 || n > 1000)
        return usage_error("--limit-resources must be a whole number from 1 to 1000");
      limits.max_resources = n;
    }
  }
  if (discovery.empty()) return usage_error("--discovery is required");
  if (!has_intent || intent.find_first_not_of(" \t") == std::string::npos) return usage_error("--intent is required");
  if (!discovery.starts_with("http://") && !discovery.starts_with("https://"))
    return usage_error("--discovery must be an http:// or https:// URL");

  http::client client{!insecure};
  auto read = agent::read_catalog(client, discovery, limits);
  if (read.error) {
    std::cerr << "z402-discover: could not read the catalog: " << *read.error << std::endl;
    return 3;
  }
  auto ranked = agent::rank(read.items, intent);
  auto now = catalog::system_wall_clock{}.now_ms();
  std::vector<agent::resource_line> lines;
  lines.reserve(read.items.size());
  for (auto pos : ranked.order) lines.push_back(agent::line_of(read.items[pos], now, ranked.scores[pos]));
  bool picked = ranked.pick.has_value();
  std::cout << (as_json ? agent::render_json(lines, picked) : agent::render_text(lines, picked));
  if (read.capped)
    std::cerr << "z402-discover: read the first " << read.items.size() << " resources (" << read.pages
              << " pages): the limit of one run" << std::endl;
  return picked ? 0 : 1;
}
