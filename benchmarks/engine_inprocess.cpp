// The engine alone, in-process (no HTTP): settle events sent from one thread, as a rail
// node's settle path would (each body's JSON text), then whole declarations (one provider
// re-declaring its 128 items, one at a time, each waited for), while another thread reads the
// list (limit=100) from the snapshot like the HTTP handler does. Prints the rates as JSON on one
// line.
//   z402-bench-engine [EVENTS] [--no-reads]
//   z402-bench-engine --signed PROVIDERS: what signing a catalog of PROVIDERS x 128 items costs
//   (docs/trust.md §5), each step timed over five rounds, and the memory a publication and the
//   one before it hold.
#include "load/catalog_gen.hpp"
#include "resident_memory.hpp"
#include "routes/list_query.hpp"
#include "z402/catalog/engine.hpp"
#include "z402/catalog/signed_catalog.hpp"
#include "z402/core/crypto.hpp"
#include "z402/rules/declaration.hpp"
#include "z402/trust/signed_note.hpp"
#include "z402/trust/statements.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <iostream>
#include <thread>
#include <vector>

#include <time.h>

using namespace z402;
using clock_type = std::chrono::steady_clock;

// The CPU time of one thread, or of the whole process, in microseconds.
double cpu_us(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int signed_cost(std::size_t providers) {
  caf::actor_system_config cfg;
  catalog::register_types(cfg);
  caf::actor_system sys{cfg};
  catalog::engine_options options;
  bench::catalog_shape shape{providers, 128, 0};
  options.limits.max_items = providers * shape.items;
  options.limits.max_catalog_bytes = 1u << 30;
  catalog::engine engine{sys, std::move(options)};
  catalog::payee_map payees;
  for (std::size_t p = 0; p < providers; ++p) payees.emplace(bench::provider_pay_to(p), bench::provider_name(p));
  engine.set_payees(payees);
  auto terms = config::default_rail_terms();
  for (std::size_t p = 0; p < providers; ++p) {
    auto body = boost::json::parse(bench::declaration_body(terms, shape, p)).as_object();
    auto checked = rules::validate_declaration(body, {terms, bench::provider_pay_to(p), false, shape.items});
    if (!checked) throw std::runtime_error("a benchmark declaration was refused: " + checked.error().reason);
    std::promise<void> declared;
    engine.declare(bench::provider_name(p), catalog::make_declare_command(*checked, {}),
                   catalog::write_completion{[&](catalog::write_outcome) { declared.set_value(); },
                                             catalog::write_outcome::unavailable("stopped")});
    declared.get_future().get();
  }
  auto snap = engine.snapshots().load();
  auto online = std::move(*trust::generate_signer("bench.test/online"));
  const auto rss_before = bench::rss_kb();
  std::vector<double> serialise, digest, sign, gzip;
  catalog::signed_publication_ptr pub;
  for (std::uint64_t round = 1; round <= 5; ++round) {
    auto t0 = clock_type::now();
    auto bytes = std::make_shared<const std::string>(catalog::whole_catalog(*snap));
    auto t1 = clock_type::now();
    auto sha256 = crypto::sha256_bytes(*bytes);
    auto t2 = clock_type::now();
    auto note = trust::sign_note(trust::text_of(trust::catalog_statement{"bench.test", round, bytes->size(), sha256, 0}), online);
    auto t3 = clock_type::now();
    pub = catalog::make_publication(round, 0, std::move(sha256), std::move(*note), "", std::move(bytes), pub);
    auto t4 = clock_type::now();
    auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
    serialise.push_back(ms(t0, t1)), digest.push_back(ms(t1, t2)), sign.push_back(ms(t2, t3)), gzip.push_back(ms(t3, t4));
  }
  const auto grown_kb = bench::rss_kb() - rss_before;
  std::size_t held = 0;  // what the newest publication and the one before hold
  for (auto* p = pub.get(); p; p = p->previous.get()) held += p->bytes->size() + p->gzip->size() + p->note.size();
  std::cout << boost::json::serialize(boost::json::object{
                   {"items", snap->items.size()},
                   {"bytes", pub->bytes->size()},
                   {"gzipBytes", pub->gzip->size()},
                   {"msSerialise", median_of(serialise)},
                   {"msSha256", median_of(digest)},
                   {"msSign", median_of(sign)},
                   {"msGzip", median_of(gzip)},
                   // Beside the catalog itself: what the newest publication and the one before hold,
                   // and how much the process grew over the five rounds (freed copies the
                   // allocator keeps included: a signing server's peak).
                   {"bytesHeld", held},
                   {"heldPerCatalogByte", static_cast<double>(held) / static_cast<double>(pub->bytes->size())},
                   {"rssKbGrown", grown_kb},
                   {"grownPerCatalogByte", static_cast<double>(grown_kb) * 1024 / static_cast<double>(pub->bytes->size())}})
            << std::endl;
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 1 && std::string_view{argv[1]} == "--signed") return signed_cost(argc > 2 ? std::stoul(argv[2]) : 128);
  const int events = argc > 1 ? std::atoi(argv[1]) : 1'000'000;
  const bool with_reads = !(argc > 2 && std::string_view{argv[2]} == "--no-reads");
  caf::actor_system_config cfg;
  catalog::register_types(cfg);
  cfg.set("scheduler.max-threads", 1);
  caf::actor_system sys{cfg};
  catalog::engine engine{sys, catalog::engine_options{}};
  engine.set_payees({{"uregtest1bench", "bench"}});
  auto terms = config::default_rail_terms();
  auto entry = config::accepts_entry(terms, "uregtest1bench", "1000", 60);
  boost::json::array items;
  for (int i = 0; i < 128; ++i)
    items.push_back({{"resource", "https://bench.example.com/r" + std::to_string(i)}, {"type", "http"},
                     {"x402Version", 2}, {"accepts", {entry}}, {"description", "A benchmark route."}});
  auto checked = rules::validate_declaration(boost::json::object{{"items", items}}, {terms, "uregtest1bench", false, 128});
  std::promise<void> declared;
  engine.declare("bench", catalog::make_declare_command(*checked, {}),
                 catalog::write_completion{[&](catalog::write_outcome) { declared.set_value(); },
                                           catalog::write_outcome::unavailable("stopped")});
  declared.get_future().get();

  std::atomic<bool> reading{true};
  std::atomic<std::uint64_t> reads{0};
  std::promise<clockid_t> reader_clock;
  std::thread reader{[&] {
    clockid_t own{};
    pthread_getcpuclockid(pthread_self(), &own);
    reader_clock.set_value(own);
    auto req = *routes::parse_list_request("limit=100");
    while (with_reads && reading.load(std::memory_order_relaxed)) {
      auto page = routes::render_list(engine.snapshots().load_cached(), req);
      reads.fetch_add(page.payload_size() ? 1 : 0, std::memory_order_relaxed);
    }
  }};
  auto reader_cpu = reader_clock.get_future().get();

  std::atomic<int> answered{0};
  std::promise<void> all_done;
  // The settles' CPU: the whole process's less the reader's, so a machine's speed or a busy
  // reader does not move it as it moves the rate.
  auto reader_start = cpu_us(reader_cpu);
  auto cpu_start = cpu_us(CLOCK_PROCESS_CPUTIME_ID);
  auto sender_start = cpu_us(CLOCK_THREAD_CPUTIME_ID);
  auto start = clock_type::now();
  // Each event's body as the bytes a rail node's /settle request brought (rules::parse_settlement:
  // one strict parse into one arena), written into one reused buffer.
  const std::string requirements = boost::json::serialize(entry);
  std::string body;
  for (int i = 0; i < events; ++i) {
    body.assign(R"({"x402Version":2,"paymentPayload":{"x402Version":2,"resource":{"url":"https://bench.example.com/r)");
    body.append(std::to_string(i % 128)).append(R"("},"payload":{"nonce":)").append(std::to_string(i));
    body.append(R"(}},"paymentRequirements":)").append(requirements).append("}");
    engine.settle(std::string_view{body}, catalog::settle_completion{[&](catalog::settle_outcome) {
                                                     if (++answered == events) all_done.set_value();
                                                   },
                                                   catalog::settle_outcome::rejected(catalog::settle_rejection::unavailable, "stopped")});
  }
  all_done.get_future().get();
  auto seconds = std::chrono::duration<double>(clock_type::now() - start).count();
  // With --no-reads the reader has ended, and its clock with it.
  auto reader_us = with_reads ? cpu_us(reader_cpu) - reader_start : 0.0;
  auto settle_cpu_us = cpu_us(CLOCK_PROCESS_CPUTIME_ID) - cpu_start - reader_us;
  auto sender_cpu_us = cpu_us(CLOCK_THREAD_CPUTIME_ID) - sender_start;

  // Whole declarations of the same 128 checked items, no digest (so none is taken for a
  // repeat): content built by the sender, each acknowledged (visible to readers) before the next.
  const int declarations = std::max(1, events / 200);
  auto declare_start = clock_type::now();
  for (int d = 0; d < declarations; ++d) {
    std::promise<void> acknowledged;
    engine.declare("bench", catalog::make_declare_command(*checked, {}),
                   catalog::write_completion{[&](catalog::write_outcome) { acknowledged.set_value(); },
                                             catalog::write_outcome::unavailable("stopped")});
    acknowledged.get_future().get();
  }
  auto declare_seconds = std::chrono::duration<double>(clock_type::now() - declare_start).count();
  reading = false;
  reader.join();
  std::uint64_t total = 0;
  for (auto& it : engine.snapshots().load()->items) total += it->record().usage.last_30_days(it->record().usage.newest_day());
  std::cout << boost::json::serialize(boost::json::object{{"events", events},
                                                          {"counted", total},
                                                          {"seconds", seconds},
                                                          {"settles_per_second", events / seconds},
                                                          {"cpu_us_per_settle", settle_cpu_us / events},
                                                          {"sender_cpu_us_per_settle", sender_cpu_us / events},
                                                          // The reader spins: how much of the machine it took while the settles ran.
                                                          {"reader_cores_while_settling", reader_us / 1e6 / seconds},
                                                          {"declarations", declarations},
                                                          {"declarations_per_second", declarations / declare_seconds},
                                                          {"declared_items_per_second", 128 * declarations / declare_seconds},
                                                          {"reads_per_second_limit100", reads.load() / (seconds + declare_seconds)}})
            << std::endl;
  return total == static_cast<std::uint64_t>(events) ? 0 : 1;
}
