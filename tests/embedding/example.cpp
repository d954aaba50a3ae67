// A rail node embeds the catalog: its own actor system, settle events as messages, the
// catalog's outcome back (for the EXTENSION-RESPONSES header of its /settle answer), and the
// catalog's log lines routed into the rail node's own log.
#include <z402/catalog/engine.hpp>

#include <boost/json.hpp>
#include <future>
#include <iostream>

// The rail node's logger takes each record: level, component, message and key fields.
struct rail_node_log final : z402::telemetry::log_sink {
  void write(const z402::telemetry::log_record& r) override {
    std::clog << "[rail-node] " << z402::telemetry::to_string(r.severity) << " z402/" << r.component << ": " << r.message;
    for (auto& f : r.fields) std::clog << " " << f.key << "=" << (f.is_number ? std::to_string(f.number) : std::string{f.text});
    std::clog << "\n";
  }
};

int main() {
  caf::actor_system_config cfg;
  z402::catalog::register_types(cfg);  // the catalog's message types and error category
  caf::actor_system sys{cfg};
  z402::catalog::engine_options options;
  options.log = z402::telemetry::logger{std::make_shared<rail_node_log>(), "catalog"};
  z402::catalog::engine catalog{sys, std::move(options)};
  catalog.set_payees({{"uregtest1shop", "shop"}});  // payTo -> provider

  auto requirements = z402::config::accepts_entry(z402::config::default_rail_terms(), "uregtest1shop", "1000", 60);
  boost::json::value settled = {
      {"x402Version", 2},
      {"paymentPayload", {{"x402Version", 2}, {"resource", {{"url", "https://shop.example.com/v1/item"}}}, {"payload", {}}}},
      {"paymentRequirements", requirements}};

  using z402::catalog::settle_outcome;
  std::promise<settle_outcome> answer;
  catalog.settle(settled, z402::catalog::settle_completion{
                              [&](settle_outcome o) { answer.set_value(std::move(o)); },
                              settle_outcome::rejected(z402::catalog::settle_rejection::unavailable, "the catalog is shutting down")});
  auto outcome = answer.get_future().get();
  std::cout << (outcome.state == settle_outcome::status::success ? "success" : outcome.reason) << "\n";
  return outcome.state == settle_outcome::status::success ? 0 : 1;
}
