// `z402-bazaar serve`: the engine on CAF threads, HTTP(S) on Asio threads, and a clean stop on
// SIGINT/SIGTERM (drain, flush the catalog file, exit 0). SIGHUP re-reads the TLS certificate.
#include "commands.hpp"

#include "z402/auth/crypto.hpp"
#include "z402/auth/keyring.hpp"
#include "z402/catalog/cluster_credentials.hpp"
#include "z402/catalog/cluster_link.hpp"
#include "z402/catalog/engine.hpp"
#include "z402/config/atomic_file.hpp"
#include "z402/http/handlers.hpp"
#include "z402/http/server.hpp"
#include "z402/wire/iso_time.hpp"

#include <boost/asio/signal_set.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <caf/all.hpp>
#include <caf/io/middleman.hpp>

#include <sys/resource.h>

#ifdef Z402_WITH_TCMALLOC
#include <gperftools/malloc_extension.h>
#endif

namespace z402::app {
namespace {

namespace net = boost::asio;

// A changed provider key or TLS certificate counts within 1 s; the buffered access log is
// pushed out on the same beat.
constexpr std::chrono::milliseconds file_poll_interval{250};

// tcmalloc keeps freed memory in per-thread caches (up to 32 MB in all) and its page heap.
// Smaller caches and free pages given back to the system cut peak RSS with a full catalog under
// load by a tenth (benchmarks/results/latest.md). The pages go back on every file poll, not as
// each span empties (tcmalloc.aggressive_memory_decommit): that returned and faulted a page per
// response for some heap layouts, each return a TLB-shootdown IPI to the other core, and a
// search at 65,536 items ran at 23k/s instead of 31k/s on those starts. On the poll the peak is
// about 1 MB higher (53.2 against 52.1 MB, 90f1f25).
void bound_allocator_caches() {
#ifdef Z402_WITH_TCMALLOC
  MallocExtension::instance()->SetNumericProperty("tcmalloc.max_total_thread_cache_bytes", 1u << 20);
#endif
}

void return_free_memory() {
#ifdef Z402_WITH_TCMALLOC
  MallocExtension::instance()->ReleaseFreeMemory();
#endif
}

catalog::catalog_load load_catalog_records(const std::filesystem::path& file, const auth::keyring& keys, std::int64_t now,
                                          const telemetry::logger& log) {
  auto loaded = catalog::load_catalog(file, now);
  if (loaded.state == catalog::catalog_load::status::corrupt)
    log.error("the catalog file " + file.string() + " is corrupt (" + loaded.problem + "); moved aside to " +
              loaded.moved_aside.string() + "; starting with an empty catalog that the next heartbeats rebuild");
  if (!loaded.journal_problem.empty())
    log.error("the catalog journal " + catalog::journal_path(file).string() + " is corrupt (" + loaded.journal_problem +
              "); moved aside to " + loaded.journal_moved_aside.string() +
              "; starting from the catalog file alone, which the next heartbeats bring up to date");
  // Items of providers removed while the server was down do not come back.
  auto dropped = std::erase_if(loaded.records, [&](auto& r) { return keys.find(r.provider) == nullptr; });
  // A follower resumes from the state the file holds only if it serves it as it was: every item
  // kept, rendered for the same UTC day. Otherwise it takes a copy.
  if (dropped || loaded.position.day != wire::utc_day(now)) loaded.position = {};
  return loaded;
}

catalog::payee_map payees_of(const auth::keyring& keys) {
  catalog::payee_map payees;
  for (auto& p : keys.providers) payees.emplace(p.pay_to, p.name);
  return payees;
}

/// What the server re-reads while it runs.
struct watched_files {
  auth::key_store& keys;
  catalog::engine& engine;
  http::tls_certificates* tls;
  const telemetry::logger& log;
  std::filesystem::path keyring;
};

/// A primary's followers authenticate writes with its keyring: the FEED sends them the file's
/// text (hashes only) whenever it changed.
void share_keyring(watched_files& w) {
  if (auto text = config::read_file(w.keyring)) w.engine.set_keyring(std::move(*text));
}

void poll_files(net::steady_timer& timer, watched_files& w, const bool& stopping) {
  timer.expires_after(file_poll_interval);
  timer.async_wait([&](boost::system::error_code ec) {
    if (ec || stopping) return;
    auto change = w.keys.reload();
    if (change.changed) {
      w.engine.set_payees(payees_of(*w.keys.current()));
      share_keyring(w);
    }
    for (auto& removed : change.removed) w.engine.forget_provider(removed);
    if (w.tls) w.tls->reload(false);
    w.log.flush();
    return_free_memory();
    poll_files(timer, w, stopping);
  });
}

/// The connection limit in force: the configured one, or three quarters of the fd limit. nullopt
/// (and one line) when the configured one leaves too few fds for the rest of the server.
std::optional<std::size_t> connection_limit(std::size_t configured, const telemetry::logger& log) {
  constexpr std::size_t reserved_fds = 64;  // catalog and key files, the log, epoll, the actors' pipes
  rlimit fds{};
  ::getrlimit(RLIMIT_NOFILE, &fds);
  auto soft = fds.rlim_cur == RLIM_INFINITY ? std::size_t{1} << 20 : static_cast<std::size_t>(fds.rlim_cur);
  if (configured == 0) return std::max<std::size_t>(1, soft / 4 * 3);
  if (configured + reserved_fds > soft) {
    log.error("the connection limit is above what the fd limit allows: raise the fd limit (ulimit -n, LimitNOFILE) "
              "or lower the connection limit",
              {{"maxConnections", std::to_string(configured)}, {"fdLimit", std::to_string(soft)}});
    return std::nullopt;
  }
  return configured;
}

}  // namespace

int serve(const config::bazaar_config& cfg, telemetry::log_format format) {
  telemetry::logger log{std::make_shared<telemetry::stream_sink>(stderr, format, "z402-bazaar"), "server"};
  bound_allocator_caches();
  std::error_code fs_ec;
  std::filesystem::create_directories(cfg.data_dir, fs_ec);
  if (fs_ec) {
    log.error("cannot create the data dir", {{"dir", cfg.data_dir.string()}, {"reason", fs_ec.message()}});
    return 1;
  }
  // A data dir that cannot be written would lose every acknowledgement: refuse to start.
  auto probe = cfg.data_dir / ".z402-write-check";
  if (auto written = config::write_file_atomically(probe, ""); !written) {
    log.error("the data dir cannot be written: " + written.error().reason, {{"dir", cfg.data_dir.string()}});
    return 1;
  }
  std::filesystem::remove(probe, fs_ec);
  auth::key_store keys{auth::keyring_path(cfg.data_dir), log};
  if (auto loaded = auth::load_keyring(auth::keyring_path(cfg.data_dir)); !loaded) {
    log.error(loaded.error().reason);  // a malformed keyring is refused at start
    return 1;
  }
  keys.reload();
  auto max_connections = connection_limit(cfg.max_connections, log);
  if (!max_connections) return 1;
  std::shared_ptr<http::tls_certificates> tls;
  if (!cfg.tls_certificate.empty()) {
    auto loaded = http::tls_certificates::load(http::tls_files{cfg.tls_certificate, cfg.tls_key}, log);
    if (!loaded) {
      log.error(loaded.error().reason);
      return 1;
    }
    tls = std::move(*loaded);
  } else if (!config::is_loopback(cfg.listen.host)) {
    log.warning("listening beyond loopback without TLS: keys and payments cross the network in clear text; "
                "give --tls-cert and --tls-key, or terminate TLS in front of this server",
                {{"listen", cfg.listen.host}});
  }

  // The io threads outlive the actor system: actors may still post completions into them.
  http::io_pool io{cfg.io_threads};
  caf::actor_system_config caf_cfg;
  catalog::register_types(caf_cfg);
  caf_cfg.set("scheduler.max-threads", cfg.actor_threads);
  // Work stealing's idle workers sleep-poll in 50 us steps, which on two cores costs a context
  // switch per step and delays messages from the io threads; the sharing policy blocks on a
  // condition variable and wakes on enqueue (benchmarks/results/profile.md).
  caf_cfg.set("scheduler.policy", caf::atom("sharing"));
  // More than one node: the FEED is published, or reached, through CAF's middleman; over
  // mutual TLS when the config names the cluster's credentials (held for the system's life).
  std::optional<catalog::cluster_credentials> cluster_tls;
  if ((cfg.cluster_listen || cfg.follow) && !cfg.cluster.empty()) {
    auto loaded = catalog::cluster_credentials::load(cfg.cluster);
    if (!loaded) {
      log.error(loaded.error().reason, {{"field", loaded.error().field}});
      return 1;
    }
    cluster_tls.emplace(std::move(*loaded));
    cluster_tls->configure(caf_cfg);
  } else if (cfg.cluster_listen || cfg.follow) {
    caf_cfg.load<caf::io::middleman>();
  }
  caf::actor_system sys{caf_cfg};

  catalog::engine_options options;
  options.limits = cfg.limits;
  options.terms = cfg.terms;
  options.allow_http_resources = cfg.allow_http_resources;
  options.catalog_file = cfg.data_dir / "catalog.json";
  options.payments_file = cfg.data_dir / "payments.bin";
  options.log = log;
  auto loaded = load_catalog_records(options.catalog_file, *keys.current(), options.clock->now_ms(), log);
  options.initial = std::move(loaded.records);
  options.initial_epoch = loaded.position.epoch;
  options.initial_version = loaded.position.version;
  options.follow = cfg.follow;
  // A follower's keys are its primary's: written here as they arrive, read by the file poll.
  options.on_keyring = [file = auth::keyring_path(cfg.data_dir), log](const std::string& text) {
    auto current = config::read_file(file);
    if (current && *current == text) return;
    if (auto written = config::write_file_atomically(file, text); !written)
      log.error("cannot write the primary's keyring here: " + written.error().reason, {{"file", file.string()}});
  };
  catalog::engine engine{sys, std::move(options)};
  engine.set_payees(payees_of(*keys.current()));
  if (cfg.cluster_listen) {
    // Each run of a primary is a new epoch: a follower that held another one takes a copy.
    auto port = catalog::publish_feed(sys, engine.feed(), *cfg.cluster_listen);
    if (!port) {
      log.error(port.error().reason, {{"option", port.error().field}});
      engine.stop();
      return 1;
    }
    auto feed = config::to_string({cfg.cluster_listen->host, *port});
    if (cluster_tls) log.info("the cluster feed is mutual TLS", {{"feed", feed}, {"certificate", cluster_tls->subject()}});
    else log.warning("the cluster feed is plain BASP: loopback only, for tests and development", {{"feed", feed}});
  }
  if (cfg.follow)
    log.info(cluster_tls ? "following the primary's feed over mutual TLS" : "following the primary's feed over plain BASP (loopback only)",
             {{"primary", config::to_string(*cfg.follow)}});

  http::access_log access{cfg.access_log ? log : telemetry::logger{}};
  http::settle_batcher settles{io.main(), engine};
  // Declarations are parsed and checked on a thread of their own, so reads never wait behind them.
  net::thread_pool checks{1};
  // Search cursors are signed with a key of this run (app_state's random_key argument): a restart
  // ends open searches, nothing else.
  http::app_state app{engine, keys, auth::random_key(""), settles, checks.get_executor(), cfg.declaration_bytes_in_flight};
  app.scheme = tls ? "https" : "http";
  app.role = cfg.follow ? "follower" : cfg.cluster_listen ? "primary" : "standalone";
  http::bazaar_handler handler{app};
  http::server_metrics metrics{handler.route_names()};
  app.metrics_enabled = cfg.metrics;
  app.http_metrics = &metrics;
  http::server_options server_options;
  server_options.host = cfg.listen.host;
  server_options.port = cfg.listen.port;
  server_options.tls = tls;
  server_options.max_connections = *max_connections;
  server_options.idle_timeout = cfg.idle_timeout;
  server_options.read_timeout = cfg.request_timeout;
  server_options.metrics = &metrics;
  http::server server{io, server_options, handler, access};
  try {
    server.start();
  } catch (const std::exception& e) {
    log.error("cannot listen", {{"listen", config::to_string(cfg.listen)}, {"reason", e.what()}});
    engine.stop();
    return 1;
  }
  // The file poll, SIGHUP and the stop share the main context's one thread and a flag set on
  // it: a stop must not race a handler on another thread that is re-arming its timer or signal
  // wait (which would keep it busy for ever, and is a data race on the object besides).
  auto& control = io.main();
  bool stopping = false;
  net::steady_timer poll_timer{control};
  watched_files watched{keys, engine, tls.get(), log, auth::keyring_path(cfg.data_dir)};
  if (cfg.cluster_listen) share_keyring(watched);
  poll_files(poll_timer, watched, stopping);
  net::signal_set hangup{control, SIGHUP};
  std::function<void()> on_hangup = [&] {
    hangup.async_wait([&](boost::system::error_code ec, int) {
      if (ec || stopping) return;
      if (tls) tls->reload(true);
      else log.info("SIGHUP: no TLS certificate to re-read");
      on_hangup();
    });
  };
  on_hangup();
  net::signal_set signals{control, SIGINT, SIGTERM};
  signals.async_wait([&](boost::system::error_code ec, int) {
    if (ec) return;
    stopping = true;
    log.info("stopping: draining connections");
    poll_timer.cancel();
    hangup.cancel();
    // Once every connection is done, nothing else on the io threads matters.
    server.drain([&io] { io.stop(); });
  });
  // Said once the signals are handled: whoever waits for this line may send SIGHUP or SIGTERM.
  auto url = std::string{tls ? "https://" : "http://"} + config::to_string({cfg.listen.host, server.port()});
  log.info("listening on " + url + " with " + std::to_string(engine.snapshots().load()->items.size()) +
           " items; data in " + cfg.data_dir.string(),
           {{"maxConnections", std::to_string(*max_connections)}});

  io.run();
  checks.join();

  bool flushed = engine.flush();
  engine.stop();
  // The actors end here, not in the actor system's destructor after the server and app_state:
  // a completion one still held (a declaration's, a settle's) is answered as it goes, and that
  // answer, posted to a stopped io thread, runs below and releases its session, write slot and
  // body bytes while all of them still live.
  sys.await_all_actors_done();
  io.run_posted();
  access.flush();
  if (flushed) log.info("stopped; catalog saved");
  else log.error("stopped; the catalog could not be saved");
  return flushed ? 0 : 1;
}

}  // namespace z402::app
