#include "test_command.hpp"

#include "../../apps/common/cli.hpp"
#include "catalog_gen.hpp"
#include "test_load.hpp"
#include "thresholds.hpp"

#include "wire/url.hpp"
#include "z402/config/rail_terms.hpp"
#include "z402/core/crypto.hpp"
#include "z402/wire/json.hpp"

#include <boost/asio/ssl/context.hpp>
#include <boost/json.hpp>

#include <openssl/ssl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <set>

namespace z402::bench {
namespace {

namespace po = boost::program_options;
namespace json = boost::json;

constexpr const char* summary =
    "Load-tests a z402 Bazaar you operate: reads (list, search, resource, MCP tools/call) in a weighted\n"
    "mix, open loop at --rate over --connections by default (each request has a due time; latency counts\n"
    "from it, so a stalled server shows in the percentiles), or closed loop (--closed: not corrected).\n"
    "Any http:// or https:// URL; a host other than loopback must be named again with --i-operate.\n"
    "Settles (settle=N in --mix) go only to items the run declares itself, under --provider-key-file\n"
    "(a provider kept for load tests), each payment unique; those items are delisted when the run\n"
    "ends, SIGINT and SIGTERM included.\n"
    "Exit 0 when every --threshold holds, 99 when one is breached, 1 when the run cannot be trusted\n"
    "(TLS failure, connections that cannot be kept), 2 on a usage error.";

struct options {
  std::string url, mix = "list=1", cacert, connect_to, i_operate, json_file, duration = "10s", warmup = "0s", drop_after = "5s";
  std::string provider_key_file, settle_key_file, pay_to, declare_every = "30s";
  std::size_t items = 4;
  std::vector<std::string> thresholds;
  double rate = 100, max_rate = 2000;
  std::size_t connections = 16, threads = 1, limit = 20, pages = 0;
  std::uint64_t requests = 0;
  double max_duration_s = 120;
};

// "30s", "500ms", "2m" or seconds; nothing when malformed.
std::optional<std::chrono::milliseconds> read_duration(std::string_view s) {
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || v < 0) return std::nullopt;
  std::string_view unit{end, static_cast<std::size_t>(s.data() + s.size() - end)};
  double ms = unit.empty() || unit == "s" ? v * 1e3 : unit == "ms" ? v : unit == "m" ? v * 60e3 : -1;
  if (ms < 0) return std::nullopt;
  return std::chrono::milliseconds{static_cast<std::int64_t>(ms)};
}

bool loopback(const std::string& host) {
  return host == "localhost" || host == "[::1]" || host.starts_with("127.");
}

// list=4,search=2: each endpoint's weight.
expected<std::vector<std::pair<endpoint, unsigned>>> read_mix(std::string_view mix) {
  std::vector<std::pair<endpoint, unsigned>> out;
  while (!mix.empty()) {
    auto comma = mix.find(',');
    auto part = mix.substr(0, comma);
    mix = comma == std::string_view::npos ? std::string_view{} : mix.substr(comma + 1);
    auto eq = part.find('=');
    auto name = part.substr(0, eq);
    unsigned weight = 1;
    if (eq != std::string_view::npos) {
      auto w = part.substr(eq + 1);
      auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), weight);
      if (ec != std::errc{} || end != w.data() + w.size() || weight == 0 || weight > 1000)
        return refused("mix", "weight of " + std::string{name} + " must be 1-1000");
    }
    auto at = std::find(endpoint_names.begin(), endpoint_names.end(), name);
    if (name == "declare") return refused("mix", "declare keeps its own cadence (--declare-every), outside the mix");
    if (at == endpoint_names.end()) return refused("mix", "no endpoint " + std::string{name} + " (list, search, resource, mcp, settle)");
    out.emplace_back(static_cast<endpoint>(at - endpoint_names.begin()), weight);
  }
  if (out.empty()) return refused("mix", "names no endpoint");
  return out;
}

std::string host_header(const test_target& t) {
  bool default_port = t.port == (t.scheme == "https" ? "443" : "80");
  return default_port ? t.host : t.host + ":" + t.port;
}

// A whole request as sent: `headers` (each line ending in CRLF) after Host and User-Agent, and
// a body (with its Content-Length) for every method but GET.
std::string request_text(const test_target& t, std::string_view method, std::string_view path, std::string_view headers,
                         std::string_view body = {}) {
  std::string out{method};
  out.append(" ").append(t.base_path).append(path).append(" HTTP/1.1\r\nHost: ").append(host_header(t));
  out.append("\r\nUser-Agent: z402-load\r\n").append(headers);
  if (method != "GET") out.append("Content-Type: application/json\r\nContent-Length: ").append(std::to_string(body.size())).append("\r\n");
  return out.append("\r\n").append(body);
}

std::string get_text(const test_target& t, const std::string& path, bool gzip) {
  return request_text(t, "GET", path, gzip ? "Accept-Encoding: gzip\r\n" : "");
}

// GET `path` as JSON (nested at most `depth` deep); why not, naming the route.
expected<json::value> get_json(const test_target& target, const std::string& path, std::size_t depth) {
  std::string body, why;
  auto status = send_once(target, get_text(target, path, false), body, why);
  if (status != 200) return error{errc::unavailable, "url", status ? "GET " + path + " answered " + std::to_string(status) : why};
  auto doc = wire::parse_strict(body, depth);
  if (!doc) return error{errc::unavailable, "url", "GET " + path + " is not JSON"};
  return std::move(*doc);
}

// What the run reads first: words to search for and items to resolve.
struct catalog_sample {
  std::size_t total = 0;
  std::vector<std::string> words;
  std::vector<std::string> resources;  // query strings of /discovery/resource
};

std::string text_at(const json::object& o, std::initializer_list<std::string_view> path) {
  const json::value* v = nullptr;
  const json::object* at = &o;
  for (auto key : path) {
    v = at ? at->if_contains(key) : nullptr;
    at = v ? v->if_object() : nullptr;
  }
  return v && v->is_string() ? std::string{v->get_string()} : std::string{};
}

expected<catalog_sample> read_catalog(const test_target& target) {
  auto doc = get_json(target, "/discovery/resources?limit=100", 64);
  if (!doc) return doc.error();
  auto* items = doc->is_object() ? doc->as_object().if_contains("items") : nullptr;
  if (!items || !items->is_array()) return error{errc::unavailable, "url", "GET /discovery/resources is not a z402 Bazaar's list"};
  catalog_sample out;
  if (auto* pagination = doc->as_object().if_contains("pagination"); pagination && pagination->is_object())
    if (auto* total = pagination->as_object().if_contains("total"); total && total->is_number()) {
      boost::system::error_code ec;
      out.total = total->to_number<std::size_t>(ec);
    }
  std::set<std::string> words;
  for (auto& v : items->as_array()) {
    auto* item = v.if_object();
    if (!item) continue;
    auto type = text_at(*item, {"type"});
    auto resource = text_at(*item, {"resource"});
    if (resource.empty()) continue;
    auto selector = type == "mcp" ? text_at(*item, {"extensions", "bazaar", "info", "input", "toolName"})
                                  : text_at(*item, {"extensions", "bazaar", "info", "input", "method"});
    if (type != "mcp" && selector.empty()) selector = "GET";
    out.resources.push_back("type=" + wire::query_escape(type) + "&url=" + wire::query_escape(resource) +
                            (type == "mcp" ? "&toolName=" : "&method=") + wire::query_escape(selector));
    std::string word;
    for (char c : text_at(*item, {"description"}) + " ") {
      if (std::isalpha(static_cast<unsigned char>(c))) {
        word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      } else {
        if (word.size() >= 5 && words.size() < 64) words.insert(word);
        word.clear();
      }
    }
  }
  out.words.assign(words.begin(), words.end());
  return out;
}

std::string mcp_text(const test_target& t, const std::string& query, bool gzip) {
  auto body = json::serialize(json::object{
      {"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"},
      {"params", json::object{{"name", "search_resources"}, {"arguments", json::object{{"query", query}, {"limit", 10}}}}}});
  return request_text(t, "POST", "/discovery/mcp",
                      std::string{"Accept: application/json, text/event-stream\r\n"} + (gzip ? "Accept-Encoding: gzip\r\n" : ""), body);
}

// A write with a key: the provider's (declarations) or the settle key (settles).
std::string keyed_text(const test_target& t, std::string_view method, std::string_view path, const std::string& key,
                       std::string_view body) {
  return request_text(t, method, path, "Authorization: Bearer " + key + "\r\n", body);
}

expected<config::rail_terms> read_terms(const test_target& target) {
  auto doc = get_json(target, "/discovery/terms", 16);
  if (!doc) return doc.error();
  return config::terms_from_json(*doc, config::default_rail_terms());
}

// The run's own items: what it declares under the operator's load-test provider, settles and,
// at the end, delists. Their URLs are the same every run (under .invalid, which no one can
// reach: an agent that finds one cannot pay it), so a run delists what a killed one left.
struct own_items {
  std::string declaration;  // POST /discovery/declarations
  std::string removal;      // DELETE /discovery/declarations
  std::vector<settle_template> settles;
};

own_items make_own_items(const config::rail_terms& terms, const std::string& pay_to, std::size_t count) {
  own_items out;
  json::array items, identities;
  auto accepts = config::accepts_entry(terms, pay_to, "1", 60);
  for (std::size_t i = 0; i < count; ++i) {
    auto resource = "https://z402-load.invalid/item-" + std::to_string(i);
    items.push_back(json::object{{"resource", resource}, {"type", "http"}, {"x402Version", 2}, {"accepts", json::array{accepts}},
                                 {"description", "Load-test item " + std::to_string(i) + " of z402-load: not a service, delisted when the test ends."},
                                 {"mimeType", "application/json"}, {"serviceName", "z402-load"}, {"tags", json::array{"z402-load"}}});
    identities.push_back(json::object{{"type", "http"}, {"resource", resource}, {"method", "GET"}});
    out.settles.push_back(settle_for(accepts, resource));
  }
  out.declaration = json::serialize(json::object{{"items", std::move(items)}});
  out.removal = json::serialize(json::object{{"items", std::move(identities)}});
  return out;
}

// Declares the run's items (the terms are the server's own); the server's answer when it refuses.
expected<own_items> declare_own_items(const test_target& t, const std::string& key, const std::string& pay_to, std::size_t count) {
  auto terms = read_terms(t);
  if (!terms) return terms.error();
  auto own = make_own_items(*terms, pay_to, count);
  std::string body, why;
  auto status = send_once(t, keyed_text(t, "POST", "/discovery/declarations", key, own.declaration), body, why);
  if (status != 200)
    return error{errc::unavailable, "provider-key-file",
                 "the run's items were not declared: " + (status ? "HTTP " + std::to_string(status) + " " + body : why)};
  return own;
}

// Delists the run's items; why they stay when they do (empty when they left).
std::string delist_own_items(const test_target& t, const std::string& key, const own_items& own) {
  std::string body, why;
  auto status = send_once(t, keyed_text(t, "DELETE", "/discovery/declarations", key, own.removal), body, why);
  if (status == 200) return {};
  return (status ? "HTTP " + std::to_string(status) + " " + body : why) +
         " (they age out as a provider's silent items do; the next run with this provider delists them)";
}

// A settle of the run's items with the nonce's place held: each send puts a payment of its own.
prepared_request settle_request(const test_target& t, const std::string& settle_key, const settle_template& body) {
  auto text = keyed_text(t, "POST", "/discovery/settled", settle_key, body.with_nonce(std::string(nonce_width, '0')));
  auto at = text.size() - body.tail.size() - nonce_width;
  return {endpoint::settle, std::move(text), at};
}

// The requests in the order connections take them: the endpoints interleaved by their weights
// (smooth weighted round-robin), each endpoint cycling through its own variants.
// Whether the catalog read first gives every endpoint of the mix something to ask.
expected<void> check_sample(const std::vector<std::pair<endpoint, unsigned>>& mix, const catalog_sample& catalog) {
  for (auto& [e, w] : mix) {
    if ((e == endpoint::search || e == endpoint::mcp) && catalog.words.empty())
      return error{errc::unavailable, "mix", "the catalog's first page has no words to search for"};
    if (e == endpoint::resource && catalog.resources.empty())
      return error{errc::unavailable, "mix", "the catalog's first page has no item to resolve"};
  }
  return {};
}

std::vector<prepared_request> prepare(const test_target& t, const std::vector<std::pair<endpoint, unsigned>>& mix,
                                      const catalog_sample& catalog, std::size_t limit, std::size_t pages_asked, bool gzip,
                                      const std::vector<prepared_request>& settles) {
  unsigned total = 0;
  for (auto& [e, w] : mix) total += w;
  std::vector<long> current(mix.size(), 0);
  std::array<std::size_t, static_cast<std::size_t>(endpoint::count)> turn{};
  std::vector<prepared_request> out;
  const std::size_t length = std::max<std::size_t>(256, total);
  auto pages = std::max<std::size_t>(1, std::min<std::size_t>(catalog.total, 10'000) / std::max<std::size_t>(1, limit));
  if (pages_asked) pages = std::min(pages, pages_asked);
  for (std::size_t n = 0; n < length; ++n) {
    std::size_t best = 0;
    for (std::size_t i = 0; i < mix.size(); ++i) {
      current[i] += mix[i].second;
      if (current[i] > current[best]) best = i;
    }
    current[best] -= total;
    auto e = mix[best].first;
    auto k = turn[static_cast<std::size_t>(e)]++;
    if (e == endpoint::settle) {
      out.push_back(settles[k % settles.size()]);
      continue;
    }
    std::string text;
    switch (e) {
      case endpoint::list:
        text = get_text(t, "/discovery/resources?limit=" + std::to_string(limit) + "&offset=" + std::to_string((k % pages) * limit), gzip);
        break;
      case endpoint::search:
        text = get_text(t, "/discovery/search?query=" + wire::query_escape(catalog.words[k % catalog.words.size()]), gzip);
        break;
      case endpoint::resource: text = get_text(t, "/discovery/resource?" + catalog.resources[k % catalog.resources.size()], gzip); break;
      case endpoint::mcp: text = mcp_text(t, catalog.words[k % catalog.words.size()], gzip); break;
      default: break;
    }
    out.push_back({e, std::move(text)});
  }
  return out;
}

expected<test_target> target_of(const options& o) {
  auto url = wire::parse_absolute_url(o.url);
  if (!url || (url->scheme != "http" && url->scheme != "https")) return refused("URL", "must be an http:// or https:// URL");
  test_target t;
  t.scheme = url->scheme;
  t.host = url->host;
  t.port = url->port.empty() ? (t.scheme == "https" ? "443" : "80") : url->port;
  t.base_path = url->path;
  while (t.base_path.ends_with('/')) t.base_path.pop_back();
  auto bare = [](std::string h) { return h.size() > 2 && h.front() == '[' ? h.substr(1, h.size() - 2) : h; };
  t.connect_host = bare(t.host);
  t.connect_port = t.port;
  if (!o.connect_to.empty()) {
    auto colon = o.connect_to.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == o.connect_to.size())
      return refused("connect-to", "must be IP:PORT");
    t.connect_host = bare(o.connect_to.substr(0, colon));
    t.connect_port = o.connect_to.substr(colon + 1);
  }
  if (!loopback(t.host) && o.i_operate != t.host)
    return refused("i-operate", "this sends real load to " + t.host + ": confirm with --i-operate " + t.host);
  if (t.scheme == "https") {
    t.tls = std::make_shared<boost::asio::ssl::context>(boost::asio::ssl::context::tls_client);
    SSL_CTX_set_min_proto_version(t.tls->native_handle(), TLS1_2_VERSION);
    t.tls->set_verify_mode(boost::asio::ssl::verify_peer);
    boost::system::error_code ec;
    if (o.cacert.empty()) t.tls->set_default_verify_paths(ec);
    else t.tls->load_verify_file(o.cacert, ec);
    if (ec) return refused("cacert", "cannot read " + o.cacert + ": " + ec.message());
  } else if (!o.cacert.empty()) {
    return refused("cacert", "is for https:// targets");
  }
  return t;
}

endpoint_figures figures_of(const endpoint_record& r, double seconds) {
  endpoint_figures f;
  f.offered_per_s = seconds > 0 ? static_cast<double>(r.due) / seconds : 0;
  f.achieved_per_s = seconds > 0 ? static_cast<double>(r.ok) / seconds : 0;
  std::uint64_t errors = 0;
  for (auto& [why, n] : r.errors) errors += n;
  f.errors = errors + r.dropped;
  f.requests = r.ok + f.errors;
  f.p50 = r.corrected.percentile(0.5);
  f.p90 = r.corrected.percentile(0.9);
  f.p99 = r.corrected.percentile(0.99);
  f.p999 = r.corrected.percentile(0.999);
  f.max = r.corrected.max();
  f.service_p99 = r.service.percentile(0.99);
  return f;
}

double ms(std::uint64_t micros) { return static_cast<double>(micros) / 1e3; }

// How evenly the answers were shared among the request connections: the least, the 10th
// percentile, the median, the 90th and the most a connection got, and how many got none.
struct connection_spread {
  std::uint64_t min = 0, p10 = 0, median = 0, p90 = 0, max = 0, none = 0;
  std::size_t connections = 0;
};

connection_spread spread_of(std::vector<std::uint64_t> answered) {
  connection_spread s;
  s.connections = answered.size();
  if (answered.empty()) return s;
  std::sort(answered.begin(), answered.end());
  auto at = [&](double q) { return answered[static_cast<std::size_t>(q * static_cast<double>(answered.size() - 1))]; };
  s.min = answered.front();
  s.p10 = at(0.1);
  s.median = at(0.5);
  s.p90 = at(0.9);
  s.max = answered.back();
  s.none = static_cast<std::uint64_t>(std::count(answered.begin(), answered.end(), 0));
  return s;
}

std::string report_text(const options& o, const test_plan& plan, const test_result& r, const endpoint_record& all) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "z402-load test %s: %s over %zu connections, %.1f s measured\n", o.url.c_str(),
                plan.open_loop ? ("open loop at " + std::to_string(static_cast<long long>(plan.rate)) + "/s").c_str()
                               : "closed loop (latency NOT corrected: timed from each send)",
                plan.connections, r.measured_seconds);
  out += line;
  std::snprintf(line, sizeof line, "%-9s %10s %10s %8s %8s %8s %9s %8s %9s %7s %8s  %s\n", "endpoint", "offered/s", "achieved/s", "p50 ms",
                "p90 ms", "p99 ms", "p99.9 ms", "max ms", "svc p99", "late", "dropped", "errors");
  out += line;
  auto row = [&](const char* name, const endpoint_record& e) {
    auto f = figures_of(e, r.measured_seconds);
    std::string errors;
    for (auto& [why, n] : e.errors) errors += why + "=" + std::to_string(n) + " ";
    std::snprintf(line, sizeof line, "%-9s %10.1f %10.1f %8.2f %8.2f %8.2f %9.2f %8.2f %9.2f %7llu %8llu  %s\n", name, f.offered_per_s,
                  f.achieved_per_s, ms(f.p50), ms(f.p90), ms(f.p99), ms(f.p999), ms(f.max), ms(f.service_p99),
                  static_cast<unsigned long long>(e.late), static_cast<unsigned long long>(e.dropped), errors.empty() ? "-" : errors.c_str());
    out += line;
  };
  std::size_t used = 0;
  for (std::size_t i = 0; i < r.endpoints.size(); ++i)
    if (r.endpoints[i].due) row(endpoint_names[i], r.endpoints[i]), ++used;
  if (used > 1) row("all", all);
  auto spread = spread_of(r.answered_per_connection);
  std::snprintf(line, sizeof line, "answers per connection: min %llu, p10 %llu, median %llu, p90 %llu, max %llu; %llu of %zu with none\n",
                static_cast<unsigned long long>(spread.min), static_cast<unsigned long long>(spread.p10),
                static_cast<unsigned long long>(spread.median), static_cast<unsigned long long>(spread.p90),
                static_cast<unsigned long long>(spread.max), static_cast<unsigned long long>(spread.none), spread.connections);
  out += line;
  std::snprintf(line, sizeof line, "connections opened: %llu", static_cast<unsigned long long>(r.connections_opened));
  out += line;
  if (r.handshakes.count())
    std::snprintf(line, sizeof line, "; TLS handshakes: %llu (p50 %.2f ms, p99 %.2f ms)", static_cast<unsigned long long>(r.handshakes.count()),
                  ms(r.handshakes.percentile(0.5)), ms(r.handshakes.percentile(0.99))),
        out += line;
  auto share = r.measured_seconds > 0 ? r.generator_cpu_seconds / (r.measured_seconds * static_cast<double>(plan.threads)) : 0;
  std::snprintf(line, sizeof line, "\ngenerator CPU: %.2f s (%.0f%% of its %zu thread%s)%s\n", r.generator_cpu_seconds, share * 100,
                plan.threads, plan.threads == 1 ? "" : "s",
                share > 0.9 ? ": the generator may be the bottleneck; add --threads or a second machine" : "");
  out += line;
  out += plan.open_loop ? "latency is corrected: from when each request was due; svc p99 is from its send\n"
                        : "latency is NOT corrected for coordinated omission (closed loop): from each send\n";
  return out;
}

json::object record_json(const endpoint_record& e, double seconds) {
  auto f = figures_of(e, seconds);
  json::object errors;
  for (auto& [why, n] : e.errors) errors[why] = n;
  return {{"due", e.due}, {"ok", e.ok}, {"late", e.late}, {"dropped", e.dropped}, {"errors", std::move(errors)},
          {"offeredPerSecond", f.offered_per_s}, {"achievedPerSecond", f.achieved_per_s},
          {"correctedUs", {{"p50", f.p50}, {"p90", f.p90}, {"p99", f.p99}, {"p999", f.p999}, {"max", f.max}}},
          {"serviceP99Us", f.service_p99}, {"gzipChecked", e.gzip_checked},
          {"histograms", {{"corrected", e.corrected.to_json()}, {"service", e.service.to_json()}}}};
}

std::atomic<bool> interrupted{false};

}  // namespace

int test_command(const std::vector<std::string>& args) {
  options o;
  std::string rate, max_duration = "120s";
  cli::command cmd{"z402-load test", "URL [OPTIONS]", summary};
  cmd.options.add_options()                                                                                                 //
      ("rate", po::value(&o.rate)->value_name("R")->default_value(100), "requests per second, all connections together (open loop)")  //
      ("connections", po::value(&o.connections)->value_name("C")->default_value(16), "keep-alive connections")                      //
      ("threads", po::value(&o.threads)->value_name("T")->default_value(1), "the generator's io threads")                           //
      ("duration", po::value(&o.duration)->value_name("TIME")->default_value("10s"), "how long to measure (500ms, 30s, 2m)")        //
      ("warmup", po::value(&o.warmup)->value_name("TIME")->default_value("0s"), "load sent before measuring")                       //
      ("requests", po::value(&o.requests)->value_name("N"), "stop after N requests")                                                //
      ("closed", "closed loop: each connection sends when its last answer came (latency not corrected)")                            //
      ("mix", po::value(&o.mix)->value_name("LIST")->default_value("list=1"), "endpoints and weights: list=4,search=2,resource=2,mcp=1")  //
      ("limit", po::value(&o.limit)->value_name("N")->default_value(20), "items per list page")                                     //
      ("pages", po::value(&o.pages)->value_name("N"), "list only the first N pages (default: pages of the first 10,000 items)")   //
      ("gzip", "ask for gzip (as node's fetch and browsers do) and check a sample of answers is gzip'd")                          //
      ("cacert", po::value(&o.cacert)->value_name("FILE"), "CA certificates to verify an https:// target with (default: the system's)")  //
      ("connect-to", po::value(&o.connect_to)->value_name("IP:PORT"), "connect here, keeping the URL's host for Host and SNI")      //
      ("i-operate", po::value(&o.i_operate)->value_name("HOST"), "confirms a target other than loopback: its host, again")           //
      ("max-rate", po::value(&o.max_rate)->value_name("R")->default_value(2000), "the highest --rate allowed")                     //
      ("max-duration", po::value(&max_duration)->value_name("TIME")->default_value("120s"), "the longest --warmup plus --duration allowed")  //
      ("drop-after", po::value(&o.drop_after)->value_name("TIME")->default_value("5s"),
       "a request that cannot start this long after it was due is dropped (counted, never sent)")                               //
      ("threshold", po::value(&o.thresholds)->value_name("EXPR")->composing(), "e.g. 'list.p99<50ms', '*.errors<0.1%', 'achieved>=0.99*offered'")  //
      ("provider-key-file", po::value(&o.provider_key_file)->value_name("FILE"),
       "a load-test provider's key: the run declares its own items under it (needed for settle)")                              //
      ("pay-to", po::value(&o.pay_to)->value_name("ADDR"), "that provider's payTo")                                                //
      ("settle-key-file", po::value(&o.settle_key_file)->value_name("FILE"), "a settle key, to report the run's payments (settle)")  //
      ("items", po::value(&o.items)->value_name("N")->default_value(4), "how many items the run declares and settles (1-128)")    //
      ("declare-every", po::value(&o.declare_every)->value_name("TIME")->default_value("30s"), "the provider's heartbeat: the run's items declared again")  //
      ("json", po::value(&o.json_file)->value_name("FILE"), "write the configuration, a per-second series and the histograms as JSON")  //
      ("progress", "a progress line each second (the default on a terminal)")                                                      //
      ("no-progress", "no progress lines");
  cmd.operands.add_options()("url", po::value(&o.url)->required(), "the catalog's base URL");
  cmd.positional.add("url", 1);
  po::variables_map vm;
  if (auto stop = cli::parse(cmd, args, vm)) return *stop;
  auto duration = read_duration(o.duration), warmup = read_duration(o.warmup), drop_after = read_duration(o.drop_after),
       cap = read_duration(max_duration);
  if (!duration || duration->count() == 0) return cli::usage_error(cmd, "--duration: a time such as 500ms, 30s or 2m");
  if (!warmup || !drop_after || !cap) return cli::usage_error(cmd, "--warmup, --drop-after and --max-duration take times such as 500ms, 30s or 2m");
  if (*warmup + *duration > *cap) return cli::usage_error(cmd, "--warmup plus --duration is above --max-duration " + max_duration + ": raise it to run longer");
  if (o.rate <= 0 || o.rate > o.max_rate)
    return cli::usage_error(cmd, "--rate must be above 0 and at most --max-rate (" + std::to_string(static_cast<long long>(o.max_rate)) + "): raise it to send more");
  if (o.connections == 0 || o.connections > 20'000) return cli::usage_error(cmd, "--connections must be 1-20000");
  if (o.threads == 0 || o.threads > 64 || o.threads > o.connections) return cli::usage_error(cmd, "--threads must be 1-64 and at most --connections");
  if (o.limit == 0 || o.limit > 1000) return cli::usage_error(cmd, "--limit must be 1-1000");
  if (vm.count("pages") && o.pages == 0) return cli::usage_error(cmd, "--pages must be at least 1");
  std::vector<threshold> thresholds;
  for (auto& text : o.thresholds) {
    auto t = parse_threshold(text);
    if (!t) return cli::usage_error(cmd, "--threshold " + t.error().reason);
    thresholds.push_back(std::move(*t));
  }
  auto mix = read_mix(o.mix);
  if (!mix) return cli::usage_error(cmd, "--mix " + mix.error().reason);
  bool settling = std::any_of(mix->begin(), mix->end(), [](auto& m) { return m.first == endpoint::settle; });
  auto declare_every = read_duration(o.declare_every);
  if (!declare_every || declare_every->count() < 100) return cli::usage_error(cmd, "--declare-every: a time of at least 100ms, such as 30s");
  if (settling && (o.provider_key_file.empty() || o.settle_key_file.empty() || o.pay_to.empty()))
    return cli::usage_error(cmd, "settle in --mix needs --provider-key-file, --pay-to and --settle-key-file: it settles only items it declares");
  if (!o.provider_key_file.empty() && o.pay_to.empty()) return cli::usage_error(cmd, "--provider-key-file needs --pay-to, the provider's payTo");
  if (!o.settle_key_file.empty() && !settling) return cli::usage_error(cmd, "--settle-key-file is for settle in --mix");
  if (o.items == 0 || o.items > 128) return cli::usage_error(cmd, "--items must be 1-128");
  std::string provider_key, settle_key;
  for (auto [file, key, name] : {std::tuple{&o.provider_key_file, &provider_key, "--provider-key-file"},
                                 std::tuple{&o.settle_key_file, &settle_key, "--settle-key-file"}}) {
    if (file->empty()) continue;
    auto read = cli::read_secret(*file);
    if (!read) return cli::usage_error(cmd, std::string{name} + ": " + read.error().reason);
    *key = std::move(*read);
  }
  auto target = target_of(o);
  if (!target) return cli::usage_error(cmd, (target.error().field == "URL" ? "URL " : "--" + target.error().field + " ") + target.error().reason);

  test_plan plan;
  plan.target = std::move(*target);
  plan.open_loop = !vm.count("closed");
  plan.rate = o.rate;
  plan.connections = o.connections;
  plan.threads = o.threads;
  plan.warmup = *warmup;
  plan.duration = *duration;
  plan.max_requests = o.requests;
  plan.drop_after = *drop_after;
  plan.gzip = vm.count("gzip") > 0;
  plan.progress = !vm.count("no-progress") && (vm.count("progress") || isatty(STDERR_FILENO));
  plan.declare_every = *declare_every;
  plan.run_id = crypto::sha256_hex(crypto::random_key("")).substr(0, 16);
  // From here a signal ends the run; the run's items are delisted on the way out.
  for (int sig : {SIGINT, SIGTERM}) std::signal(sig, [](int) { interrupted = true; });
  auto catalog = read_catalog(plan.target);
  if (!catalog) return std::cerr << "z402-load test: " << catalog.error().reason << "\n", 1;
  if (auto sample = check_sample(*mix, *catalog); !sample) return std::cerr << "z402-load test: " << sample.error().reason << "\n", 1;
  std::optional<own_items> own;
  std::vector<prepared_request> settles;
  if (!provider_key.empty()) {
    auto declared = declare_own_items(plan.target, provider_key, o.pay_to, o.items);
    if (!declared) return std::cerr << "z402-load test: " << declared.error().reason << "\n", 1;
    own = std::move(*declared);
    plan.declarations.push_back({endpoint::declare, keyed_text(plan.target, "POST", "/discovery/declarations", provider_key, own->declaration)});
    for (auto& body : own->settles) settles.push_back(settle_request(plan.target, settle_key, body));
  }
  plan.requests = prepare(plan.target, *mix, *catalog, o.limit, o.pages, plan.gzip, settles);

  auto r = run_test(plan, interrupted);
  auto left_behind = own ? delist_own_items(plan.target, provider_key, *own) : std::string{};
  endpoint_record all;
  for (auto& e : r.endpoints) all.merge(e);
  std::cout << report_text(o, plan, r, all);

  int code = 0;
  json::array checked;
  if (!r.untrusted.empty()) {
    std::cout << "untrusted: " << r.untrusted << "\n";
    code = 1;
  }
  for (auto& t : thresholds) {
    std::string measured;
    const endpoint_record* rec = &all;
    for (std::size_t i = 0; i < endpoint_names.size(); ++i)
      if (t.endpoint == endpoint_names[i]) rec = &r.endpoints[i];
    bool ok = rec->due > 0 && t.holds(figures_of(*rec, r.measured_seconds), measured);
    if (rec->due == 0) measured = "no requests";
    std::cout << "threshold " << t.text << ": " << (ok ? "ok" : "BREACHED") << " (" << measured << ")\n";
    checked.push_back(json::object{{"threshold", t.text}, {"ok", ok}, {"measured", measured}});
    if (!ok && code == 0) code = 99;
  }
  if (interrupted) std::cout << "interrupted: the figures cover the part that ran\n";
  if (own) std::cout << (left_behind.empty() ? "the run's " + std::to_string(o.items) + " items are delisted\n" : "NOT delisted: " + left_behind + "\n");
  if (!o.json_file.empty()) {
    json::object endpoints;
    for (std::size_t i = 0; i < r.endpoints.size(); ++i)
      if (r.endpoints[i].due) endpoints[endpoint_names[i]] = record_json(r.endpoints[i], r.measured_seconds);
    json::array seconds;
    for (auto& s : r.seconds)
      seconds.push_back(json::object{{"due", s.due}, {"ok", s.ok}, {"failed", s.failed}, {"maxCorrectedUs", s.max_corrected}});
    auto spread = spread_of(r.answered_per_connection);
    std::ofstream{o.json_file} << json::serialize(json::object{
        {"config", {{"url", o.url}, {"openLoop", plan.open_loop}, {"rate", plan.rate}, {"connections", plan.connections},
                    {"threads", plan.threads}, {"durationMs", plan.duration.count()}, {"warmupMs", plan.warmup.count()},
                    {"mix", o.mix}, {"gzip", plan.gzip}, {"items", own ? o.items : 0},
                    {"declareEveryMs", own ? plan.declare_every.count() : 0}}},
        {"measuredSeconds", r.measured_seconds}, {"connectionsOpened", r.connections_opened},
        {"answersPerConnection", {{"connections", spread.connections}, {"min", spread.min}, {"p10", spread.p10}, {"median", spread.median},
                                  {"p90", spread.p90}, {"max", spread.max}, {"none", spread.none}}},
        {"tlsHandshakes", r.handshakes.to_json()}, {"generatorCpuSeconds", r.generator_cpu_seconds},
        {"endpoints", std::move(endpoints)}, {"all", record_json(all, r.measured_seconds)}, {"seconds", std::move(seconds)},
        {"thresholds", std::move(checked)}, {"untrusted", r.untrusted}, {"exitCode", code},
        {"itemsLeftBehind", own && !left_behind.empty() ? o.items : 0}}) << "\n";
  }
  return code;
}

}  // namespace z402::bench
