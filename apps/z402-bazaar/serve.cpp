// `z402-bazaar serve`: the engine on CAF threads, HTTP on Asio threads, and a clean stop on
// SIGINT/SIGTERM (drain, flush the catalog file, exit 0).
#include "commands.hpp"

#include "z402/auth/crypto.hpp"
#include "z402/auth/keyring.hpp"
#include "z402/catalog/engine.hpp"
#include "z402/http/handlers.hpp"
#include "z402/http/server.hpp"

#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <caf/all.hpp>

#include <iostream>
#include <thread>

#ifdef Z402_WITH_TCMALLOC
#include <gperftools/malloc_extension.h>
#endif

namespace z402::app {
namespace {

namespace net = boost::asio;

constexpr std::chrono::milliseconds key_poll_interval{250};  // a changed key counts within 1 s

// tcmalloc keeps freed memory in per-thread caches (up to 32 MB in all) and its page heap.
// Smaller caches and returning freed pages at once cost no measurable throughput here and cut
// peak RSS with a full catalog under load by a tenth (benchmarks/results/latest.md).
void bound_allocator_caches() {
#ifdef Z402_WITH_TCMALLOC
  MallocExtension::instance()->SetNumericProperty("tcmalloc.max_total_thread_cache_bytes", 1u << 20);
  MallocExtension::instance()->SetNumericProperty("tcmalloc.aggressive_memory_decommit", 1);
#endif
}

std::vector<catalog::item_record> load_catalog_records(const std::filesystem::path& file, const auth::keyring& keys,
                                                       std::int64_t now) {
  auto loaded = catalog::load_catalog(file, now);
  if (loaded.state == catalog::catalog_load::status::corrupt)
    std::cerr << "z402-bazaar: the catalog file " << file.string() << " is corrupt (" << loaded.problem
              << "); moved aside to " << loaded.moved_aside.string()
              << "; starting with an empty catalog that the next heartbeats rebuild" << std::endl;
  // Items of providers removed while the server was down do not come back.
  std::erase_if(loaded.records, [&](auto& r) { return keys.find(r.provider) == nullptr; });
  return std::move(loaded.records);
}

catalog::payee_map payees_of(const auth::keyring& keys) {
  catalog::payee_map payees;
  for (auto& p : keys.providers) payees.emplace(p.pay_to, p.name);
  return payees;
}

void poll_keys(net::steady_timer& timer, auth::key_store& keys, catalog::engine& engine, http::access_log& log) {
  timer.expires_after(key_poll_interval);
  timer.async_wait([&](boost::system::error_code ec) {
    if (ec) return;
    auto change = keys.reload();
    if (change.changed) engine.set_payees(payees_of(*keys.current()));
    for (auto& removed : change.removed) engine.forget_provider(removed);
    log.flush();
    poll_keys(timer, keys, engine, log);
  });
}

}  // namespace

int serve(const config::bazaar_config& cfg) {
  bound_allocator_caches();
  std::error_code fs_ec;
  std::filesystem::create_directories(cfg.data_dir, fs_ec);
  if (fs_ec) {
    std::cerr << "z402-bazaar: cannot create the data dir " << cfg.data_dir.string() << ": " << fs_ec.message() << std::endl;
    return 1;
  }
  auth::key_store keys{auth::keyring_path(cfg.data_dir)};
  try {
    auth::load_keyring(auth::keyring_path(cfg.data_dir));  // refuse to start on a malformed keyring
  } catch (const std::exception& e) {
    std::cerr << "z402-bazaar: " << e.what() << std::endl;
    return 1;
  }
  keys.reload();

  // The io_context outlives the actor system: actors may still post completions into it.
  net::io_context ioc{static_cast<int>(cfg.io_threads)};
  caf::actor_system_config caf_cfg;
  caf_cfg.set("scheduler.max-threads", cfg.actor_threads);
  // Work stealing's idle workers sleep-poll in 50 us steps, which on two cores costs a context
  // switch per step and delays messages from the io threads; the sharing policy blocks on a
  // condition variable and wakes on enqueue (benchmarks/results/settle.txt).
  caf_cfg.set("scheduler.policy", caf::atom("sharing"));
  caf::actor_system sys{caf_cfg};

  catalog::engine_options options;
  options.limits = cfg.limits;
  options.terms = cfg.terms;
  options.allow_http_resources = cfg.allow_http_resources;
  options.catalog_file = cfg.data_dir / "catalog.json";
  options.initial = load_catalog_records(options.catalog_file, *keys.current(), options.clock->now_ms());
  catalog::engine engine{sys, std::move(options)};
  engine.set_payees(payees_of(*keys.current()));

  http::access_log log{cfg.access_log ? stderr : nullptr};
  // Search cursors are signed with a key of this run: a restart ends open searches, nothing else.
  http::settle_batcher settles{ioc, engine};
  // Declarations are parsed and checked on a thread of their own, so reads never wait behind them.
  net::thread_pool checks{1};
  http::app_state app{engine, keys, cfg.terms, cfg.allow_http_resources, auth::random_key(""), settles, checks.get_executor()};
  http::server_options server_options;
  server_options.host = cfg.listen_host;
  server_options.port = cfg.listen_port;
  http::bazaar_handler handler{app};
  http::server server{ioc, server_options, handler, log};
  try {
    server.start();
  } catch (const std::exception& e) {
    std::cerr << "z402-bazaar: cannot listen on " << cfg.listen_host << ":" << cfg.listen_port << ": " << e.what()
              << std::endl;
    engine.stop();
    return 1;
  }
  std::cerr << "z402-bazaar: listening on http://" << cfg.listen_host << ":" << server.port() << " with "
            << engine.snapshots().load()->items.size() << " items; data in " << cfg.data_dir.string() << std::endl;

  net::steady_timer key_timer{ioc};
  poll_keys(key_timer, keys, engine, log);
  net::signal_set signals{ioc, SIGINT, SIGTERM};
  signals.async_wait([&](boost::system::error_code ec, int) {
    if (ec) return;
    std::cerr << "z402-bazaar: stopping: draining connections" << std::endl;
    key_timer.cancel();
    server.drain([] {});
  });

  std::vector<std::thread> threads;
  for (std::size_t i = 1; i < cfg.io_threads; ++i) threads.emplace_back([&] { ioc.run(); });
  ioc.run();
  for (auto& t : threads) t.join();
  checks.join();

  bool flushed = false;
  {
    caf::scoped_actor self{sys};
    self->request(engine.registry(), std::chrono::seconds{10}, catalog::atom::flush::value)
        .receive([&](bool ok) { flushed = ok; },
                 [&](caf::error& err) { std::cerr << "z402-bazaar: final flush failed: " << sys.render(err) << std::endl; });
  }
  engine.stop();
  log.flush();
  std::cerr << "z402-bazaar: stopped" << (flushed ? "; catalog saved" : "; the catalog could not be saved") << std::endl;
  return flushed ? 0 : 1;
}

}  // namespace z402::app
