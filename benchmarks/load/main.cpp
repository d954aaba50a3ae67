// z402-load: the load generator of z402 Bazaar.
//   z402-load test URL [OPTIONS]
//       load-tests any deployment over HTTP or HTTPS, open loop with corrected latency, thresholds
//       and a JSON report (test_command.hpp; z402-load test --help).
// The benchmark suite's own commands, against a server on loopback it seeded itself:
//   z402-load seed --target URL --bazaar BIN --data-dir DIR --keys-out FILE [--providers 32] [--items 128] [--fill-bytes N]
//       adds the providers and a settle key with the server's own CLI, declares the catalog,
//       and writes what `run` needs (keys, terms, shape) to FILE.
//   z402-load run --target URL --keys FILE [--duration 30] [--threads 1] [--readers 64] [--limit 100]
//       [--search-every 0] [--declare-every-ms 0] [--declarers 0] [--invalid-every 0] [--change-every 0]
//       [--settles-per-second 0] [--settle-connections 16] [--accept-gzip 0] [--probe-target URL] [--json FILE]
//       prints a progress line each second and a summary (requests/s, p50/p99/p999, errors);
//       --probe-target reads the probed declarations elsewhere (a follower: the replication lag).
//   z402-load searchable --target URL --keys FILE [--rounds 20] [--json FILE]
//       how long a content change takes to be searchable (p50, p99, max).
#include "load.hpp"
#include "test_command.hpp"

#include "wire/url.hpp"
#include "z402/version.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <sys/resource.h>

namespace {

using namespace z402;
namespace json = boost::json;

constexpr const char* usage_text =
    "usage: z402-load test URL [OPTIONS]   (load-test a deployment: z402-load test --help)\n"
    "       z402-load seed --target URL --bazaar BIN --data-dir DIR --keys-out FILE [--providers N] [--items N] [--fill-bytes N]\n"
    "       z402-load run --target URL --keys FILE [--duration S] [--threads N] [--readers N] [--limit N]\n"
    "                 [--search-every N] [--declare-every-ms MS] [--declarers N] [--invalid-every N]\n"
    "                 [--change-every N] [--settles-per-second N] [--settle-connections N] [--accept-gzip 0|1]\n"
    "                 [--probe-target URL] [--json FILE]\n"
    "       z402-load searchable --target URL --keys FILE [--rounds N] [--json FILE]\n";

int usage(const std::string& why) {
  std::cerr << "z402-load: " << why << "\n" << usage_text;
  return 2;
}

/// Runs a command and returns the last line it printed (the CLI prints keys last).
std::optional<std::string> last_line_of(const std::string& command) {
  auto* pipe = popen(command.c_str(), "r");
  if (!pipe) return std::nullopt;
  std::string out;
  char buf[4096];
  while (auto n = std::fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  if (pclose(pipe) != 0) return std::nullopt;
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out.substr(out.rfind('\n') == std::string::npos ? 0 : out.rfind('\n') + 1);
}

std::string quoted(const std::string& s) { return "'" + s + "'"; }  // paths we made ourselves: no quotes inside

bool number(const std::map<std::string, std::string>& a, const std::string& name, std::size_t& out, std::size_t max) {
  auto it = a.find(name);
  if (it == a.end()) return true;
  auto [end, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), out);
  return ec == std::errc{} && end == it->second.data() + it->second.size() && out <= max;
}

json::object row_json(const bench::summary_row& r) {
  json::object errors;
  for (auto& [why, n] : r.errors) errors[why] = n;
  return {{"count", r.count}, {"perSecond", r.per_second}, {"p50Ms", r.p50_ms}, {"p99Ms", r.p99_ms},
          {"p999Ms", r.p999_ms}, {"maxMs", r.max_ms}, {"errors", std::move(errors)}};
}

// The keys, terms and shape `z402-load seed` wrote to `path`, into `o`; why not, when they are
// not there or not what seed writes.
std::string read_keys(const std::string& path, bench::load_options& o) {
  std::ifstream in{path};
  if (!in) return "cannot be read";
  std::stringstream text;
  text << in.rdbuf();
  try {
    auto keys = json::parse(text.str()).as_object();
    for (auto& k : keys.at("providers").as_array()) o.provider_keys.emplace_back(k.as_string());
    o.settle_key = keys.at("settleKey").as_string();
    auto terms = config::terms_from_json(keys.at("terms"), config::default_rail_terms());
    if (!terms) return "terms: " + terms.error().reason;
    o.terms = *terms;
    auto& shape = keys.at("shape").as_object();
    o.shape = {static_cast<std::size_t>(shape.at("providers").as_int64()), static_cast<std::size_t>(shape.at("items").as_int64()),
               static_cast<std::size_t>(shape.at("fillBytes").as_int64())};
  } catch (const std::exception& e) {
    // Boost.JSON's parse, at() and as_*() say what they missed; the file is named by the caller.
    return std::string{"not a keys file written by z402-load seed ("} + e.what() + ")";
  }
  if (o.provider_keys.empty()) return "names no provider key";
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage("a command is required");
  std::string command = argv[1];
  if (command == "--help" || command == "-h")
    return std::cout << "The load generator of z402 Bazaar. `test` load-tests any deployment; seed, run and searchable are\n"
                        "the benchmark suite's: they seed a catalog server on loopback with providers and items, then load\n"
                        "it with readers, declarers and settles, and report throughput and latency.\n\n"
                     << usage_text,
           0;
  if (command == "--version") return std::cout << "z402-load " << z402::version() << "\n", 0;
  if (command == "test") return bench::test_command({argv + 2, argv + argc});
  std::map<std::string, std::string> a;
  for (int i = 2; i < argc; ++i) {
    std::string k = argv[i];
    if (!k.starts_with("--") || i + 1 >= argc) return usage("options are --name value pairs: " + k);
    a[k] = argv[++i];
  }
  if (!a.contains("--target")) return usage("--target is required");
  auto target = wire::parse_absolute_url(a["--target"]);
  if (!target || target->scheme != "http") return usage("--target must be an http:// URL");
  if (target->host != "127.0.0.1" && target->host != "localhost" && target->host != "[::1]")
    return usage("--target must be on loopback: a load generator is not for other people's servers");

  bench::load_options o;
  o.host = target->host == "[::1]" ? "::1" : target->host;
  o.port = target->port.empty() ? "80" : target->port;

  if (command == "seed") {
    for (auto k : {"--bazaar", "--data-dir", "--keys-out"})
      if (!a.contains(k)) return usage(std::string{k} + " is required");
    if (!number(a, "--providers", o.shape.providers, 1024) || !number(a, "--items", o.shape.items, 128) ||
        !number(a, "--fill-bytes", o.shape.fill_bytes, std::size_t{1} << 30))
      return usage("--providers (<= 1024), --items (<= 128) and --fill-bytes must be whole numbers");
    auto cli = quoted(a["--bazaar"]) + " ";
    auto dir = " --data-dir " + quoted(a["--data-dir"]);
    for (std::size_t p = 0; p < o.shape.providers; ++p) {
      auto key = last_line_of(cli + "provider add " + bench::provider_name(p) + " --pay-to " + bench::provider_pay_to(p) + dir + " 2>/dev/null");
      if (!key) return std::cerr << "z402-load: provider add failed\n", 1;
      o.provider_keys.push_back(*key);
    }
    auto settle_key = last_line_of(cli + "settle-key create" + dir + " 2>/dev/null");
    auto terms_text = last_line_of(cli + "terms" + dir);
    if (!settle_key || !terms_text) return std::cerr << "z402-load: settle-key create or terms failed\n", 1;
    auto terms = config::terms_from_json(json::parse(*terms_text), config::default_rail_terms());
    if (!terms) return std::cerr << "z402-load: terms: " << terms.error().reason << "\n", 1;
    o.terms = *terms;
    if (auto failure = bench::seed_catalog(o); !failure.empty()) return std::cerr << "z402-load: seed: " << failure << "\n", 1;
    json::array keys;
    for (auto& k : o.provider_keys) keys.emplace_back(k);
    std::ofstream{a["--keys-out"]} << json::serialize(json::object{
        {"providers", std::move(keys)}, {"settleKey", *settle_key}, {"terms", json::parse(*terms_text)},
        {"shape", json::object{{"providers", o.shape.providers}, {"items", o.shape.items}, {"fillBytes", o.shape.fill_bytes}}}});
    std::cerr << "z402-load: seeded " << o.shape.providers * o.shape.items << " items from " << o.shape.providers << " providers\n";
    return 0;
  }
  if (command != "run" && command != "searchable") return usage("unknown command " + command);
  if (!a.contains("--keys")) return usage("--keys is required (written by z402-load seed)");
  if (auto why = read_keys(a["--keys"], o); !why.empty())
    return std::cerr << "z402-load: --keys " << a["--keys"] << ": " << why << "\n", 2;
  if (command == "searchable") {
    std::size_t rounds = 20;
    if (!number(a, "--rounds", rounds, 1000) || rounds == 0) return usage("--rounds is 1-1000");
    std::string why;
    auto micros = bench::searchable_latency(o, rounds, why);
    if (micros.empty()) return std::cerr << "z402-load searchable: " << why << "\n", 1;
    std::sort(micros.begin(), micros.end());
    auto at = [&](double q) { return static_cast<double>(micros[std::min(micros.size() - 1, static_cast<std::size_t>(q * micros.size()))]) / 1000; };
    std::printf("searchable after a content change, %zu rounds: p50 %.2f ms, p99 %.2f ms, max %.2f ms\n", micros.size(), at(0.5),
                at(0.99), static_cast<double>(micros.back()) / 1000);
    if (a.contains("--json"))
      std::ofstream{a["--json"]} << json::serialize(json::object{
          {"rounds", micros.size()}, {"p50Ms", at(0.5)}, {"p99Ms", at(0.99)}, {"maxMs", static_cast<double>(micros.back()) / 1000}}) << "\n";
    return 0;
  }
  std::size_t duration = 30, declare_ms = 0, settles = 0, gzip = 0;
  if (!number(a, "--duration", duration, 600) || duration == 0 || !number(a, "--threads", o.threads, 8) || o.threads == 0 ||
      !number(a, "--readers", o.readers, 1024) || !number(a, "--limit", o.list_limit, 1000) || o.list_limit == 0 ||
      !number(a, "--search-every", o.search_every, 1'000'000) || !number(a, "--declare-every-ms", declare_ms, 3'600'000) ||
      !number(a, "--declarers", o.declarers, o.shape.providers) || !number(a, "--invalid-every", o.invalid_every, 1'000'000) || !number(a, "--settles-per-second", settles, 100'000) ||
      !number(a, "--settle-connections", o.settle_connections, 256) || o.settle_connections == 0 ||
      !number(a, "--change-every", o.change_every, 1'000'000) || !number(a, "--accept-gzip", gzip, 1))
    return usage("a number is out of its bounds (duration 1-600 s, threads 1-8, readers <= 1024, limit 1-1000, "
                 "declarers <= providers, settles <= 100000/s, settle connections 1-256, accept-gzip 0 or 1)");
  o.accept_gzip = gzip == 1;
  if (a.contains("--probe-target")) {
    auto probe = wire::parse_absolute_url(a["--probe-target"]);
    if (!probe || probe->scheme != "http" || probe->host != target->host || probe->port.empty())
      return usage("--probe-target must be an http:// URL with a port on the --target's host");
    o.probe_port = probe->port;
  }
  o.duration = std::chrono::seconds{duration};
  o.declare_every = std::chrono::milliseconds{declare_ms};
  o.settles_per_second = static_cast<double>(settles);

  auto result = bench::run_load(o, stderr);
  json::object kinds;
  std::printf("%-10s %10s %10s %9s %9s %9s %9s  errors\n", "kind", "count", "per s", "p50 ms", "p99 ms", "p999 ms", "max ms");
  for (std::size_t k = 0; k < bench::kind_count; ++k) {
    auto row = bench::summarise(result.lanes, static_cast<bench::kind>(k), result.seconds);
    if (!row.count && row.errors.empty()) continue;
    std::string errors;
    for (auto& [why, n] : row.errors) errors += why + "=" + std::to_string(n) + " ";
    std::printf("%-10s %10llu %10.0f %9.2f %9.2f %9.2f %9.2f  %s\n", bench::kind_names[k],
                static_cast<unsigned long long>(row.count), row.per_second, row.p50_ms, row.p99_ms, row.p999_ms, row.max_ms,
                errors.empty() ? "-" : errors.c_str());
    kinds[bench::kind_names[k]] = row_json(row);
  }
  // What the generator itself took of the machine it shares with the server.
  rusage self{};
  getrusage(RUSAGE_SELF, &self);
  auto cpu = static_cast<double>(self.ru_utime.tv_sec + self.ru_stime.tv_sec) +
             static_cast<double>(self.ru_utime.tv_usec + self.ru_stime.tv_usec) / 1e6;
  if (a.contains("--json"))
    std::ofstream{a["--json"]} << json::serialize(json::object{
        {"seconds", result.seconds}, {"generatorCpuSeconds", cpu}, {"kinds", std::move(kinds)}}) << "\n";
  return 0;
}
