// z402-demo-service: a paid service built on the kit. It lists itself in a z402 Bazaar, stays
// listed while it is ready, takes DEVELOPMENT payments, and reports each delivered call to the
// catalog, so one local run shows the whole loop: listed, paid, counted.
#include "../common/cli.hpp"
#include "demo_routes.hpp"

#include "z402/core/crypto.hpp"
#include "z402/config/listen_address.hpp"
#include "z402/config/rail_terms.hpp"
#include "z402/http/access_log.hpp"
#include "z402/http/client.hpp"
#include "z402/http/server.hpp"
#include "z402/kit/catalog_link.hpp"
#include "z402/kit/dev_verifier.hpp"
#include "z402/kit/paid_service.hpp"
#include "z402/telemetry/stream_sink.hpp"
#include "z402/wire/base64.hpp"
#include "z402/wire/json.hpp"

#include <boost/asio/signal_set.hpp>
#include <boost/json.hpp>
#include <caf/all.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

namespace {

namespace net = boost::asio;
namespace json = boost::json;
using namespace z402;
namespace po = boost::program_options;

constexpr const char* development_note =
    "Payments are DEVELOPMENT ONLY: an HMAC over the terms, resource and a nonce, signed with a\n"
    "secret shared by payer and service (a public default unless --dev-secret-file). They move\n"
    "no money; never run this verifier where payments matter.";

/// The development payments' secret: the public default, or the one in `file`.
expected<std::string> dev_secret(const std::string& file) {
  if (file.empty()) return std::string{kit::default_dev_secret};
  return cli::read_secret(file);
}

int pay(const std::vector<std::string>& args) {
  std::string url, method, data, secret_file;
  cli::command cmd{"z402-demo-service pay", "URL [OPTIONS]",
                   "Calls a paid route: reads its 402, pays it with a development payment and prints the\n"
                   "answer's status and body. Exit 0 on a 2xx, 1 otherwise, 3 when the route cannot be read.\n\n" +
                       std::string{development_note}};
  cmd.options.add_options()                                                                               //
      ("method", po::value(&method)->value_name("VERB"), "the request method (default GET, POST with --data)")  //
      ("data", po::value(&data)->value_name("JSON"), "a JSON request body")                                  //
      ("dev-secret-file", po::value(&secret_file)->value_name("FILE"), "the development payment secret")      //
      ("show-payment", "print the PAYMENT-SIGNATURE header on stderr")                                      //
      ("insecure", "skip TLS certificate checks (local testing only)");
  cmd.operands.add_options()("url", po::value(&url)->required(), "the route");
  cmd.positional.add("url", 1);
  po::variables_map vm;
  if (auto stop = cli::parse(cmd, args, vm)) return *stop;
  auto secret = dev_secret(secret_file);
  if (!secret) return cli::usage_error(cmd, "--dev-secret-file: " + secret.error().reason);
  http::client_request req;
  req.url = url;
  if (method.empty()) method = vm.count("data") ? "POST" : "GET";
  req.method = http::bhttp::string_to_verb(method);
  if (req.method == http::bhttp::verb::unknown) return cli::usage_error(cmd, "--method: unknown method " + method);
  if (vm.count("data")) {
    req.body = data;
    req.headers.emplace_back("Content-Type", "application/json");
  }
  http::client client{!vm.count("insecure")};
  std::size_t budget = 8u << 20;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{20};
  auto first = client.fetch(req, deadline, budget);
  if (!first) {
    std::cerr << "z402-demo-service pay: " << first.error().reason << std::endl;
    return 3;
  }
  auto& unpaid = *first;
  auto header = unpaid.find("PAYMENT-REQUIRED");
  if (unpaid.result_int() != 402 || header == unpaid.end()) {
    std::cerr << "z402-demo-service pay: expected 402 with PAYMENT-REQUIRED, got " << unpaid.result_int() << std::endl;
    return 1;
  }
  auto decoded = wire::base64_decode({header->value().data(), header->value().size()});
  auto required = wire::parse_strict(decoded ? *decoded : std::string{}, 64);
  if (!decoded || !required || !required->is_object() || !required->get_object().contains("accepts")) {
    std::cerr << "z402-demo-service pay: PAYMENT-REQUIRED is not a PaymentRequired" << std::endl;
    return 1;
  }
  auto payment = kit::dev_payment_header(*secret, required->get_object(), crypto::random_key(""));
  if (vm.count("show-payment")) std::cerr << "payment: " << payment << std::endl;
  req.headers.emplace_back("PAYMENT-SIGNATURE", payment);
  auto second = client.fetch(req, deadline, budget);
  if (!second) {
    std::cerr << "z402-demo-service pay: " << second.error().reason << std::endl;
    return 3;
  }
  auto& paid = *second;
  std::cout << paid.result_int() << " " << paid.body() << std::endl;
  return paid.result_int() >= 200 && paid.result_int() < 300 ? 0 : 1;
}

// The command line of `serve`, as given.
struct serve_options {
  std::string discovery, key_file, pay_to, listen, public_url, settle_key_file, terms_file, secret_file, cert, tls_key,
      format, served = "quote,wordcount,primes";
  long long interval_ms = 30'000;
  bool verify_tls = true;
};

cli::command serve_command(serve_options& o) {
  cli::command cmd{"z402-demo-service", "--discovery URL --provider-key-file FILE --pay-to ADDR [OPTIONS]\n"
                                        "       z402-demo-service pay URL [OPTIONS]",
                   "A paid service on the z402 kit: GET /v1/quote?symbol, POST /v1/wordcount, GET /v1/primes/:n.\n"
                   "It declares its routes to the catalog while it is ready and reports each paid call.\n"
                   "SIGUSR1 makes it unready (it stops declaring), SIGUSR2 ready again.\n\n" +
                       std::string{development_note}};
  cmd.options.add_options()                                                                                   //
      ("discovery", po::value(&o.discovery)->required()->value_name("URL"), "the catalog's base URL")          //
      ("provider-key-file", po::value(&o.key_file)->required()->value_name("FILE"), "a file holding the provider key")  //
      ("pay-to", po::value(&o.pay_to)->required()->value_name("ADDR"), "the provider's payTo")                  //
      ("listen", po::value(&o.listen)->value_name("HOST:PORT")->default_value("127.0.0.1:4021"), "where to listen")  //
      ("public-url", po::value(&o.public_url)->value_name("URL"), "the origin it is listed under (default from --listen)")  //
      ("settle-key-file", po::value(&o.settle_key_file)->value_name("FILE"), "report paid calls with this settle key")  //
      ("terms", po::value(&o.terms_file)->value_name("FILE"), "the catalog's terms (output of z402-bazaar terms)")  //
      ("routes", po::value(&o.served)->value_name("LIST")->default_value(o.served),
       "the routes to serve, of quote, wordcount, primes (a route left out leaves the catalog at the first beat)")  //
      ("declare-interval-ms", po::value(&o.interval_ms)->value_name("N")->default_value(30'000),
       "milliseconds between declarations; 0 turns declaring off")                                              //
      ("dev-secret-file", po::value(&o.secret_file)->value_name("FILE"), "the development payment secret")        //
      ("tls-cert", po::value(&o.cert)->value_name("FILE"), "PEM certificate chain: serve HTTPS (with --tls-key)")  //
      ("tls-key", po::value(&o.tls_key)->value_name("FILE"), "PEM private key, not readable by others")           //
      ("log-format", po::value(&o.format)->value_name("text|json")->default_value("text"), "log lines as text or JSON, on stderr")  //
      ("insecure", "skip TLS certificate checks towards the catalog (local testing only)");
  return cmd;
}

// What the files named on the command line hold: read before anything starts.
struct serve_secrets {
  std::string provider_key;
  std::optional<std::string> settle_key;
  std::string dev_secret;
};

expected<serve_secrets> read_secrets(const serve_options& o) {
  serve_secrets out;
  auto key = cli::read_secret(o.key_file);
  if (!key) return error{key.error().code, "provider-key-file", key.error().reason};
  out.provider_key = std::move(*key);
  if (!o.settle_key_file.empty()) {
    auto read = cli::read_secret(o.settle_key_file);
    if (!read) return error{read.error().code, "settle-key-file", read.error().reason};
    out.settle_key = std::move(*read);
  }
  auto secret = dev_secret(o.secret_file);
  if (!secret) return error{secret.error().code, "dev-secret-file", secret.error().reason};
  out.dev_secret = std::move(*secret);
  return out;
}

// How the service is listed: its origin (from --public-url or where it listens), payTo and the
// catalog's terms (--terms, else the defaults).
expected<kit::service_identity> identity_of(const serve_options& o, std::string_view scheme) {
  kit::service_identity identity;
  identity.service_name = "z402 demo tools";
  identity.tags = {"demo", "tools"};
  identity.public_url = o.public_url.empty() ? std::string{scheme} + o.listen : o.public_url;
  while (identity.public_url.ends_with('/')) identity.public_url.pop_back();
  identity.pay_to = o.pay_to;
  identity.terms = config::default_rail_terms();
  if (o.terms_file.empty()) return identity;
  std::ifstream in{o.terms_file};
  std::stringstream text;
  text << in.rdbuf();
  auto parsed = wire::parse_strict(text.str(), 16);
  if (!parsed) return error{parsed.error().code, "terms", parsed.error().reason};
  auto terms = config::terms_from_json(*parsed, identity.terms);
  if (!terms) return error{terms.error().code, "terms", terms.error().reason};
  identity.terms = std::move(*terms);
  return identity;
}

// The demo's routes that --routes names, verified with the development secret, each delivered
// call reported when a settle key was given.
expected<std::shared_ptr<kit::paid_service>> make_service(const serve_options& o, kit::service_identity identity,
                                                           const std::string& secret, kit::settle_reporter_actor reporter) {
  kit::service_options service_opts;
  service_opts.identity = std::move(identity);
  for (auto& route : demo::demo_routes()) {
    auto name = route.pattern.substr(4, route.pattern.find('/', 4) - 4);  // "/v1/NAME..."
    if (("," + o.served + ",").find("," + name + ",") != std::string::npos) service_opts.routes.push_back(route);
  }
  if (service_opts.routes.empty()) return error{errc::invalid_request, "routes", "must name at least one of quote, wordcount, primes"};
  service_opts.verifier = std::make_shared<kit::dev_verifier>(secret);
  if (reporter)
    service_opts.on_delivered = [reporter](json::object event) {
      caf::anon_send(reporter, kit::atom::report::value, json::serialize(event));
    };
  return std::make_shared<kit::paid_service>(std::move(service_opts));
}

// Serves until SIGINT or SIGTERM; SIGUSR1 and SIGUSR2 make the service unready and ready.
void run_until_stopped(http::io_pool& io, http::server& server, kit::paid_service& service, const telemetry::logger& log) {
  auto& ioc = io.main();
  net::signal_set readiness{ioc, SIGUSR1, SIGUSR2};
  std::function<void()> watch_readiness = [&] {
    readiness.async_wait([&](boost::system::error_code ec, int signal) {
      if (ec) return;
      service.pause(signal == SIGUSR1);
      log.info(signal == SIGUSR1 ? "paused: reporting unready" : "resumed: ready");
      watch_readiness();
    });
  };
  watch_readiness();
  net::signal_set stop{ioc, SIGINT, SIGTERM};
  stop.async_wait([&](boost::system::error_code ec, int) {
    if (ec) return;
    readiness.cancel();
    // Once every connection is done, nothing else on the io_context matters (a readiness
    // signal that arrived with the stop may have re-armed its wait).
    server.drain([&io] { io.stop(); });
  });
  io.run();
}

int serve(const std::vector<std::string>& args) {
  serve_options o;
  auto cmd = serve_command(o);
  po::variables_map vm;
  if (auto stop = cli::parse(cmd, args, vm)) return *stop;
  o.verify_tls = !vm.count("insecure");
  if (o.format != "text" && o.format != "json") return cli::usage_error(cmd, "--log-format must be text or json");
  if (o.cert.empty() != o.tls_key.empty()) return cli::usage_error(cmd, "--tls-cert and --tls-key go together");
  if (o.interval_ms < 0) return cli::usage_error(cmd, "--declare-interval-ms must be 0 or more");
  auto refused = [&](const error& e) { return cli::usage_error(cmd, "--" + e.field + ": " + e.reason); };
  telemetry::logger log{std::make_shared<telemetry::stream_sink>(
                            stderr, o.format == "json" ? telemetry::log_format::json : telemetry::log_format::text,
                            "z402-demo-service"),
                        "demo"};
  auto secrets = read_secrets(o);
  if (!secrets) return refused(secrets.error());
  auto address = config::parse_listen_address(o.listen, false);
  if (!address) return cli::usage_error(cmd, "--" + address.error().reason);
  std::shared_ptr<http::tls_certificates> tls;
  if (!o.cert.empty()) {
    auto loaded = http::tls_certificates::load(http::tls_files{o.cert, o.tls_key}, log);
    if (!loaded) {
      log.error(loaded.error().reason);
      return 1;
    }
    tls = std::move(*loaded);
  }
  auto scheme = std::string{tls ? "https://" : "http://"};
  auto identity = identity_of(o, scheme);
  if (!identity) return refused(identity.error());

  caf::actor_system_config caf_cfg;
  caf_cfg.set("scheduler.max-threads", 1);
  caf::actor_system sys{caf_cfg};
  kit::settle_reporter_actor reporter;
  if (secrets->settle_key)
    reporter = kit::spawn_settle_reporter(sys, {o.discovery, *secrets->settle_key, std::chrono::seconds{10}, o.verify_tls, log});
  auto service = make_service(o, *identity, secrets->dev_secret, reporter);
  if (!service) return refused(service.error());

  http::io_pool io{1};
  http::access_log access{telemetry::logger{}};
  http::server_options server_opts;
  server_opts.host = address->host;
  server_opts.port = address->port;
  server_opts.tls = tls;
  http::server server{io, server_opts, **service, access};
  try {
    server.start();
  } catch (const std::exception& e) {
    log.error("cannot listen on " + o.listen, {{"reason", e.what()}});
    return 1;
  }
  log.info("listening on " + scheme + o.listen + " as " + identity->public_url + "; DEVELOPMENT payments only");
  kit::heartbeat_options beat{{o.discovery, secrets->provider_key, std::chrono::seconds{10}, o.verify_tls, log},
                              std::chrono::milliseconds{o.interval_ms}};
  auto heartbeat = kit::spawn_heartbeat(sys, beat, *service);
  if (!heartbeat) log.info("declaring is off (--declare-interval-ms 0)");
  run_until_stopped(io, server, **service, log);
  if (heartbeat) caf::anon_send_exit(heartbeat, caf::exit_reason::user_shutdown);
  if (reporter) caf::anon_send_exit(reporter, caf::exit_reason::user_shutdown);
  log.info("stopped");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args{argv + 1, argv + argc};
  if (!args.empty() && args[0] == "pay") return pay({args.begin() + 1, args.end()});
  return serve(args);
}
