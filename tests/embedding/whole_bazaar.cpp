// A rail node runs the whole Bazaar in its own process: the HTTP listener, the catalog and its
// files, /metrics and /discovery/mcp, started in the rail node's own actor system beside its
// own actors; its settles go straight to the engine, and everyone else reads over HTTP.
#include <z402/auth/keyring.hpp>
#include <z402/bazaar.hpp>
#include <z402/telemetry/stream_sink.hpp>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>
#include <chrono>
#include <filesystem>
#include <future>
#include <iostream>
#include <unistd.h>

namespace http = boost::beast::http;

// What anyone reads from the Bazaar the rail node runs: GET a path, the body as JSON.
boost::json::value read_json(std::uint16_t port, const std::string& path) {
  boost::asio::io_context io;
  boost::beast::tcp_stream stream{io};
  stream.connect(boost::asio::ip::tcp::endpoint{boost::asio::ip::make_address("127.0.0.1"), port});
  http::request<http::empty_body> req{http::verb::get, path, 11};
  req.set(http::field::host, "127.0.0.1");
  http::write(stream, req);
  boost::beast::flat_buffer buffer;
  http::response<http::string_body> res;
  http::read(stream, buffer, res);
  return boost::json::parse(res.body());
}

int main() {
  auto data_dir = std::filesystem::temp_directory_path() / ("rail-node-bazaar-" + std::to_string(::getpid()));
  z402::config::bazaar_config cfg;  // what `z402-bazaar serve` reads from its command line and config file
  cfg.data_dir = data_dir;
  cfg.listen = {"127.0.0.1", 0};  // any free port
  auto provider_key = z402::auth::add_provider(data_dir, "shop", "uregtest1shop", 0);
  if (!provider_key) return std::cerr << provider_key.error().reason << "\n", 1;

  caf::actor_system_config caf_cfg;
  auto setup = z402::bazaar_setup::prepare(caf_cfg, cfg);  // the catalog's types, a cluster role's middleman
  if (!setup) return std::cerr << setup.error().reason << "\n", 1;
  caf::actor_system sys{caf_cfg};
  auto sink = std::make_shared<z402::telemetry::stream_sink>(stderr, z402::telemetry::log_format::text, "rail-node");
  z402::telemetry::logger log{sink, "bazaar"};
  auto bazaar = z402::bazaar::start(sys, cfg, *setup, log);
  if (!bazaar) return 1;  // the log says why; bazaar.error() names the field

  // The rail node's own settle, counted once, visible to every reader.
  auto requirements = z402::config::accepts_entry(z402::config::default_rail_terms(), "uregtest1shop", "1000", 60);
  boost::json::value settled = {
      {"x402Version", 2},
      {"paymentPayload", {{"x402Version", 2}, {"resource", {{"url", "https://shop.example.com/v1/item"}}}, {"payload", {}}}},
      {"paymentRequirements", requirements}};
  using z402::catalog::settle_outcome;
  std::promise<settle_outcome> answer;
  (*bazaar)->engine().settle(settled, z402::catalog::settle_completion{
                                          [&](settle_outcome o) { answer.set_value(std::move(o)); },
                                          settle_outcome::rejected(z402::catalog::settle_rejection::unavailable, "stopping")});
  if (answer.get_future().get().state != settle_outcome::status::success) return 1;
  (*bazaar)->engine().flush();  // counts are published within 250 ms; a flush publishes them now

  auto health = read_json((*bazaar)->port(), "/health");
  auto list = read_json((*bazaar)->port(), "/discovery/resources");
  auto& item = list.at("items").at(0);
  std::cout << (*bazaar)->url() << " " << health.at("status").as_string().c_str() << " "
            << item.at("resource").as_string().c_str() << " paidCallsToday=" << item.at("paidCallsToday").as_int64() << "\n";
  bool counted = item.at("paidCallsToday").as_int64() == 1;

  auto stopped = (*bazaar)->stop();  // drains connections, saves the catalog, ends its actors
  bool saved = stopped && std::filesystem::exists(data_dir / "catalog.json");
  std::filesystem::remove_all(data_dir);
  return counted && saved ? 0 : 1;
}
