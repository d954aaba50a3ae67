// In-process counting is exact under concurrency: 10,000 payments from 16 threads through the
// embedding API give paidCallsToday = 10,000 on the item, and each payment reported twice (a rail
// node retrying, the two reports racing each other from two threads) still counts once: 20,000
// answers of success, 10,000 counted, 10,000 repeated.
#include "z402/catalog/engine.hpp"
#include "z402/rules/declaration.hpp"

#include <boost/json.hpp>

#include <atomic>
#include <condition_variable>
#include <future>
#include <iostream>
#include <thread>

using namespace z402;

int main() {
  caf::actor_system_config cfg;
  catalog::register_types(cfg);
  cfg.set("scheduler.max-threads", 2);
  caf::actor_system sys{cfg};
  catalog::engine engine{sys, catalog::engine_options{}};
  engine.set_payees({{"uregtest1exact", "exact"}});
  auto terms = config::default_rail_terms();
  auto entry = config::accepts_entry(terms, "uregtest1exact", "1000", 60);
  boost::json::value body = {{"items", {{{"resource", "https://exact.example.com/x"}, {"type", "http"},
                                         {"x402Version", 2}, {"accepts", {entry}}}}}};
  auto checked = rules::validate_declaration(body, {terms, "uregtest1exact", false, 128});
  if (!checked) return std::cerr << checked.error().message() << "\n", 1;
  std::promise<catalog::write_outcome> declared;
  engine.declare("exact", catalog::make_declare_command(*checked, {}),
                 catalog::write_completion{[&](catalog::write_outcome o) { declared.set_value(o); },
                                           catalog::write_outcome::unavailable("stopped")});
  if (declared.get_future().get().state != catalog::write_outcome::status::ok) return std::cerr << "declare failed\n", 1;

  // Payment n: its own nonce, as every real payment has.
  auto settled = [&](int n) {
    return boost::json::value{
        {"x402Version", 2},
        {"paymentPayload", {{"x402Version", 2}, {"resource", {{"url", "https://exact.example.com/x"}}}, {"payload", {{"nonce", n}}}}},
        {"paymentRequirements", entry}};
  };
  constexpr int threads = 16, per_thread = 625, payments = threads * per_thread, reports = 2 * payments;
  std::atomic<int> answered{0}, succeeded{0};
  std::mutex m;
  std::condition_variable cv;
  std::vector<std::thread> senders;
  // Thread t reports its own payments and then its neighbour's: every payment twice, from two threads.
  for (int t = 0; t < threads; ++t)
    senders.emplace_back([&, t] {
      for (int i = 0; i < 2 * per_thread; ++i)
        engine.settle(settled(((t + i / per_thread) % threads) * per_thread + i % per_thread),
                      catalog::settle_completion{[&](catalog::settle_outcome o) {
                                                            succeeded += o.state == catalog::settle_outcome::status::success;
                                                            if (++answered == reports) {
                                                              std::lock_guard<std::mutex> g{m};
                                                              cv.notify_one();
                                                            }
                                                          },
                                                          catalog::settle_outcome::rejected(catalog::settle_rejection::unavailable, "stopped")});
    });
  for (auto& s : senders) s.join();
  {
    std::unique_lock<std::mutex> lock{m};
    if (!cv.wait_for(lock, std::chrono::seconds{60}, [&] { return answered == reports; }))
      return std::cerr << "only " << answered << " answers within 60 s\n", 1;
  }
  // Counts are published within the counts interval; flush publishes what is held back now.
  if (!engine.flush()) return std::cerr << "flush failed\n", 1;
  auto item = boost::json::parse(engine.snapshots().load()->items.at(0)->json());
  auto paid = item.at("paidCallsToday").as_int64();
  auto& stats = *engine.context().stats;
  std::cout << "in-process: " << succeeded << " acknowledged, paidCallsToday " << paid << ", counted "
            << stats.settles_counted << ", repeated " << stats.settles_repeated << "\n";
  return succeeded == reports && paid == payments && stats.settles_counted == payments && stats.settles_repeated == payments ? 0 : 1;
}
