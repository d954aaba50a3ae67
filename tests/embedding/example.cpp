// A rail node embeds the catalog: its own actor system, settle events as messages, the
// catalog's outcome back (for the EXTENSION-RESPONSES header of its /settle answer).
#include <z402/catalog/engine.hpp>

#include <boost/json.hpp>
#include <future>
#include <iostream>

int main() {
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  z402::catalog::engine catalog{sys, z402::catalog::engine_options{}};
  catalog.set_payees({{"uregtest1shop", "shop"}});  // payTo -> provider

  auto requirements = z402::config::accepts_entry(z402::config::default_rail_terms(), "uregtest1shop", "1000", 60);
  boost::json::value settled = {
      {"x402Version", 2},
      {"paymentPayload", {{"x402Version", 2}, {"resource", {{"url", "https://shop.example.com/v1/item"}}}, {"payload", {}}}},
      {"paymentRequirements", requirements}};

  std::promise<z402::catalog::settle_outcome> answer;
  catalog.settle(settled, z402::catalog::settle_completion{
                              [&](z402::catalog::settle_outcome o) { answer.set_value(std::move(o)); },
                              z402::catalog::settle_outcome::rejected("the catalog is shutting down")});
  auto outcome = answer.get_future().get();
  std::cout << (outcome.state == z402::catalog::settle_outcome::status::success ? "success" : outcome.reason) << "\n";
  return outcome.state == z402::catalog::settle_outcome::status::success ? 0 : 1;
}
