// z402-demo-service: a paid service built on the kit. It lists itself in a z402 Bazaar, stays
// listed while it is ready, takes DEVELOPMENT payments, and reports each delivered call to the
// catalog, so one local run shows the whole loop: listed, paid, counted.
#include "demo_routes.hpp"

#include "z402/auth/crypto.hpp"
#include "z402/config/rail_terms.hpp"
#include "z402/http/access_log.hpp"
#include "z402/http/client.hpp"
#include "z402/http/server.hpp"
#include "z402/kit/catalog_link.hpp"
#include "z402/kit/dev_verifier.hpp"
#include "z402/kit/paid_service.hpp"
#include "z402/wire/base64.hpp"
#include "z402/wire/json.hpp"

#include <boost/asio/signal_set.hpp>
#include <boost/json.hpp>
#include <caf/all.hpp>

#include <charconv>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

namespace {

namespace net = boost::asio;
namespace json = boost::json;
using namespace z402;

constexpr const char* usage =
    "usage:\n"
    "  z402-demo-service --discovery URL --provider-key-file FILE --pay-to ADDR\n"
    "                    [--listen HOST:PORT] [--public-url URL] [--settle-key-file FILE]\n"
    "                    [--terms FILE] [--declare-interval-ms N] [--dev-secret-file FILE] [--insecure]\n"
    "  z402-demo-service pay URL [--method GET|POST] [--data JSON] [--dev-secret-file FILE] [--show-payment]\n"
    "\n"
    "Payments are DEVELOPMENT ONLY: an HMAC over the terms, resource and a nonce, signed with a\n"
    "secret shared by payer and service (a public default unless --dev-secret-file). They move\n"
    "no money; never run this verifier where payments matter.\n"
    "Signals: SIGUSR1 makes the service unready (it stops declaring), SIGUSR2 ready again.\n";

int usage_error(const std::string& why) {
  std::cerr << "z402-demo-service: " << why << "\n" << usage;
  return 2;
}

void log_line(const std::string& line) {
  auto text = "z402-demo-service: " + line + "\n";
  std::fwrite(text.data(), 1, text.size(), stderr);  // one write per line: threads do not interleave
}

std::optional<std::string> read_secret(const std::string& path, std::string& error) {
  std::ifstream in{path};
  if (!in) {
    error = "cannot read " + path;
    return std::nullopt;
  }
  std::stringstream text;
  text << in.rdbuf();
  auto s = text.str();
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.erase(0, 1);
  if (s.empty()) error = path + " is empty";
  return s.empty() ? std::nullopt : std::optional{s};
}

using options_map = std::map<std::string, std::string>;

/// --name value pairs and bare --flags; anything else is an error.
std::optional<options_map> read_options(const std::vector<std::string>& args, std::size_t from,
                                        std::initializer_list<std::string_view> flags, std::string& error,
                                        std::vector<std::string>* positional = nullptr) {
  options_map out;
  for (auto i = from; i < args.size(); ++i) {
    auto& a = args[i];
    if (std::find(flags.begin(), flags.end(), a) != flags.end()) {
      out[a] = "";
    } else if (a.starts_with("--")) {
      if (i + 1 >= args.size()) {
        error = a + " needs a value";
        return std::nullopt;
      }
      out[a] = args[++i];
    } else if (positional) {
      positional->push_back(a);
    } else {
      error = "unexpected argument " + a;
      return std::nullopt;
    }
  }
  return out;
}

std::string dev_secret(const options_map& opts, std::string& error) {
  auto it = opts.find("--dev-secret-file");
  if (it == opts.end()) return std::string{kit::default_dev_secret};
  return read_secret(it->second, error).value_or("");
}

int pay(const std::vector<std::string>& args) {
  std::string error;
  std::vector<std::string> urls;
  auto opts = read_options(args, 1, {"--show-payment"}, error, &urls);
  if (!opts) return usage_error(error);
  if (urls.size() != 1) return usage_error("pay needs exactly one URL");
  for (auto& [k, _] : *opts)
    if (k != "--method" && k != "--data" && k != "--dev-secret-file" && k != "--show-payment") return usage_error("unknown option " + k);
  auto secret = dev_secret(*opts, error);
  if (secret.empty()) return usage_error(error);
  http::client_request req;
  req.url = urls[0];
  auto method = opts->contains("--method") ? opts->at("--method") : (opts->contains("--data") ? "POST" : "GET");
  req.method = http::bhttp::string_to_verb(method);
  if (req.method == http::bhttp::verb::unknown) return usage_error("unknown method " + method);
  if (opts->contains("--data")) {
    req.body = opts->at("--data");
    req.headers.emplace_back("Content-Type", "application/json");
  }
  http::client client;
  std::size_t budget = 8u << 20;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{20};
  auto first = client.fetch(req, deadline, budget);
  if (auto* failed = std::get_if<http::fetch_error>(&first)) {
    std::cerr << "z402-demo-service pay: " << failed->message << std::endl;
    return 3;
  }
  auto& unpaid = std::get<http::client_response>(first);
  auto header = unpaid.find("PAYMENT-REQUIRED");
  if (unpaid.result_int() != 402 || header == unpaid.end()) {
    std::cerr << "z402-demo-service pay: expected 402 with PAYMENT-REQUIRED, got " << unpaid.result_int() << std::endl;
    return 1;
  }
  auto decoded = wire::base64_decode({header->value().data(), header->value().size()});
  auto required = decoded ? wire::parse_strict(*decoded, 64, error) : std::nullopt;
  if (!required || !required->is_object() || !required->get_object().contains("accepts")) {
    std::cerr << "z402-demo-service pay: PAYMENT-REQUIRED is not a PaymentRequired" << std::endl;
    return 1;
  }
  auto payment = kit::dev_payment_header(secret, required->get_object(), auth::random_key(""));
  if (opts->contains("--show-payment")) std::cerr << "payment: " << payment << std::endl;
  req.headers.emplace_back("PAYMENT-SIGNATURE", payment);
  auto second = client.fetch(req, deadline, budget);
  if (auto* failed = std::get_if<http::fetch_error>(&second)) {
    std::cerr << "z402-demo-service pay: " << failed->message << std::endl;
    return 3;
  }
  auto& paid = std::get<http::client_response>(second);
  std::cout << paid.result_int() << " " << paid.body() << std::endl;
  return paid.result_int() >= 200 && paid.result_int() < 300 ? 0 : 1;
}

int serve(const std::vector<std::string>& args) {
  std::string error;
  auto opts = read_options(args, 0, {"--insecure"}, error);
  if (!opts) return usage_error(error);
  for (auto& [k, _] : *opts)
    if (k != "--discovery" && k != "--provider-key-file" && k != "--pay-to" && k != "--listen" && k != "--public-url" &&
        k != "--settle-key-file" && k != "--terms" && k != "--declare-interval-ms" && k != "--dev-secret-file" &&
        k != "--insecure")
      return usage_error("unknown option " + k);
  for (auto required : {"--discovery", "--provider-key-file", "--pay-to"})
    if (!opts->contains(required)) return usage_error(std::string{required} + " is required");
  auto key = read_secret(opts->at("--provider-key-file"), error);
  if (!key) return usage_error(error);
  std::optional<std::string> settle_key;
  if (opts->contains("--settle-key-file") && !(settle_key = read_secret(opts->at("--settle-key-file"), error)))
    return usage_error(error);
  auto secret = dev_secret(*opts, error);
  if (secret.empty()) return usage_error(error);

  auto listen = opts->contains("--listen") ? opts->at("--listen") : "127.0.0.1:4021";
  auto colon = listen.rfind(':');
  unsigned port = 0;
  if (colon == std::string::npos || std::from_chars(listen.data() + colon + 1, listen.data() + listen.size(), port).ec != std::errc{} ||
      port == 0 || port > 65535)
    return usage_error("--listen must be HOST:PORT with a port from 1 to 65535");
  std::chrono::milliseconds interval{30'000};
  if (opts->contains("--declare-interval-ms")) {
    long long ms = -1;
    auto& v = opts->at("--declare-interval-ms");
    if (std::from_chars(v.data(), v.data() + v.size(), ms).ec != std::errc{} || ms < 0)
      return usage_error("--declare-interval-ms must be a whole number of milliseconds, 0 to turn declaring off");
    interval = std::chrono::milliseconds{ms};
  }

  kit::service_identity identity;
  identity.service_name = "z402 demo tools";
  identity.tags = {"demo", "tools"};
  identity.public_url = opts->contains("--public-url") ? opts->at("--public-url") : "http://" + listen;
  while (identity.public_url.ends_with('/')) identity.public_url.pop_back();
  identity.pay_to = opts->at("--pay-to");
  identity.terms = config::default_rail_terms();
  if (opts->contains("--terms")) {
    std::ifstream in{opts->at("--terms")};
    std::stringstream text;
    text << in.rdbuf();
    auto parsed = wire::parse_strict(text.str(), 16, error);
    auto terms = parsed ? config::terms_from_json(*parsed, identity.terms, error) : std::nullopt;
    if (!terms) return usage_error("--terms: " + error);
    identity.terms = std::move(*terms);
  }

  caf::actor_system_config caf_cfg;
  caf_cfg.set("scheduler.max-threads", 1);
  caf::actor_system sys{caf_cfg};
  bool verify_tls = !opts->contains("--insecure");
  caf::actor reporter;
  if (settle_key)
    reporter = kit::spawn_settle_reporter(sys, {opts->at("--discovery"), *settle_key, std::chrono::seconds{10}, verify_tls, log_line});

  kit::service_options service_opts;
  service_opts.identity = identity;
  service_opts.routes = demo::demo_routes();
  service_opts.verifier = std::make_shared<kit::dev_verifier>(secret);
  if (reporter)
    service_opts.on_delivered = [reporter](json::object event) {
      caf::anon_send(reporter, kit::atom::report::value, json::serialize(event));
    };
  auto service = std::make_shared<kit::paid_service>(std::move(service_opts));

  net::io_context ioc{1};
  http::access_log log{nullptr};
  http::server_options server_opts;
  server_opts.host = listen.substr(0, colon);
  server_opts.port = static_cast<std::uint16_t>(port);
  http::server server{ioc, server_opts, *service, log};
  try {
    server.start();
  } catch (const std::exception& e) {
    log_line("cannot listen on " + listen + ": " + e.what());
    return 1;
  }
  log_line("listening on http://" + listen + " as " + identity.public_url + "; DEVELOPMENT payments only");
  kit::heartbeat_options beat{{opts->at("--discovery"), *key, std::chrono::seconds{10}, verify_tls, log_line}, interval};
  auto heartbeat = kit::spawn_heartbeat(sys, beat, service);
  if (!heartbeat) log_line("declaring is off (--declare-interval-ms 0)");

  net::signal_set readiness{ioc, SIGUSR1, SIGUSR2};
  std::function<void()> watch_readiness = [&] {
    readiness.async_wait([&](boost::system::error_code ec, int signal) {
      if (ec) return;
      service->pause(signal == SIGUSR1);
      log_line(signal == SIGUSR1 ? "paused: reporting unready" : "resumed: ready");
      watch_readiness();
    });
  };
  watch_readiness();
  net::signal_set stop{ioc, SIGINT, SIGTERM};
  stop.async_wait([&](boost::system::error_code ec, int) {
    if (ec) return;
    readiness.cancel();
    server.drain([] {});
  });
  ioc.run();
  for (auto& a : {heartbeat, reporter})
    if (a) caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
  log_line("stopped");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args{argv + 1, argv + argc};
  if (args.empty()) return usage_error("--discovery, --provider-key-file and --pay-to are required");
  if (args[0] == "--help" || args[0] == "-h") return std::cout << usage, 0;
  if (args[0] == "pay") return pay(args);
  return serve(args);
}
