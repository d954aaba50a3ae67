#include "z402/bazaar.hpp"

#include "bazaar/startup.hpp"

#include "z402/core/crypto.hpp"
#include "z402/auth/keyring.hpp"
#include "catalog/cluster_credentials.hpp"
#include "catalog/cluster_link.hpp"
#include "z402/config/atomic_file.hpp"
#include "routes/handlers.hpp"
#include "z402/http/server.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <caf/io/middleman.hpp>

#include <future>
#include <mutex>
#include <thread>

namespace z402 {

namespace net = boost::asio;

// -- bazaar_setup ----------------------------------------------------------------------------

bazaar_setup::bazaar_setup() = default;
bazaar_setup::bazaar_setup(bazaar_setup&&) noexcept = default;
bazaar_setup& bazaar_setup::operator=(bazaar_setup&&) noexcept = default;
bazaar_setup::~bazaar_setup() = default;

expected<bazaar_setup> bazaar_setup::prepare(caf::actor_system_config& caf_cfg, const config::bazaar_config& cfg) {
  catalog::register_types(caf_cfg);
  bazaar_setup setup;
  bool clustered = cfg.cluster_listen || cfg.follow;
  if (clustered && !cfg.cluster.empty()) {
    auto loaded = catalog::cluster_credentials::load(cfg.cluster);
    if (!loaded) return loaded.error();
    setup.cluster_tls_ = std::make_unique<catalog::cluster_credentials>(std::move(*loaded));
    setup.cluster_tls_->configure(caf_cfg);
  } else if (clustered) {
    caf_cfg.load<caf::io::middleman>();
  }
  return setup;
}

std::optional<std::string> bazaar_setup::cluster_subject() const {
  if (!cluster_tls_) return std::nullopt;
  return cluster_tls_->subject();
}

// -- what runs -------------------------------------------------------------------------------

namespace {

// A changed provider key or TLS certificate counts within 1 s; the buffered access log is
// pushed out on the same beat.
constexpr std::chrono::milliseconds file_poll_interval{250};

/// The engine's options: the config's, and the saved catalog as the keys read now allow it.
catalog::engine_options engine_options_of(const config::bazaar_config& cfg, const auth::key_store& keys, const telemetry::logger& log,
                                          std::optional<catalog::engine_options::signing_setup> signing) {
  catalog::engine_options options;
  options.signing = std::move(signing);
  options.limits = cfg.limits;
  options.terms = cfg.terms;
  options.allow_http_resources = cfg.allow_http_resources;
  options.catalog_file = cfg.data_dir / "catalog.json";
  options.payments_file = cfg.data_dir / "payments.bin";
  options.log = log;
  auto loaded = startup::load_catalog_records(options.catalog_file, *keys.current(), options.clock->now_ms(), log);
  options.initial = std::move(loaded.records);
  options.initial_epoch = loaded.position.epoch;
  options.initial_version = loaded.position.version;
  options.initial_day = loaded.position.day;
  options.follow = cfg.follow;
  // A follower's keys are its primary's: written here as they arrive, read by the file watch.
  options.on_keyring = [file = auth::keyring_path(cfg.data_dir), log](const std::string& text) {
    auto current = config::read_file(file);
    if (current && *current == text) return;
    if (auto written = config::write_file_atomically(file, text); !written)
      log.error("cannot write the primary's keyring here: " + written.error().reason, {{"file", file.string()}});
  };
  return options;
}

http::server_options server_options_of(const config::bazaar_config& cfg, std::size_t max_connections,
                                       std::shared_ptr<http::tls_certificates> tls, http::server_metrics& metrics) {
  http::server_options options;
  options.host = cfg.listen.host;
  options.port = cfg.listen.port;
  options.tls = std::move(tls);
  options.max_connections = max_connections;
  options.idle_timeout = cfg.idle_timeout;
  options.read_timeout = cfg.request_timeout;
  options.metrics = &metrics;
  return options;
}

/// The TLS certificates when the config names them; a warning when it names none and the
/// server listens beyond loopback.
expected<std::shared_ptr<http::tls_certificates>> certificates_of(const config::bazaar_config& cfg, const telemetry::logger& log) {
  if (!cfg.tls_certificate.empty()) return http::tls_certificates::load(http::tls_files{cfg.tls_certificate, cfg.tls_key}, log);
  if (!config::is_loopback(cfg.listen.host))
    log.warning("listening beyond loopback without TLS: keys and payments cross the network in clear text; "
                "give --tls-cert and --tls-key, or terminate TLS in front of this server",
                {{"listen", cfg.listen.host}});
  return std::shared_ptr<http::tls_certificates>{};
}

}  // namespace

/// Declared in the order things start; destroyed in reverse: the io threads' contexts outlive
/// everything that posts into them, the engine outlives the routes that call it.
struct bazaar::running {
  running(caf::actor_system& sys, const config::bazaar_config& cfg, telemetry::logger log, auth::keyring_file keyring,
          std::shared_ptr<http::tls_certificates> certificates, std::size_t max_connections,
          std::optional<catalog::engine_options::signing_setup> signing)
      : cfg(cfg),
        log(std::move(log)),
        tls(std::move(certificates)),
        io(cfg.io_threads),
        keys(auth::keyring_path(cfg.data_dir), this->log, std::move(keyring)),
        engine(sys, engine_options_of(cfg, keys, this->log, std::move(signing))),
        access(cfg.access_log ? this->log : telemetry::logger{}),
        settles(io.main(), engine),
        // Search cursors are signed with a key of this run: a restart ends open searches, nothing else.
        routes(engine, keys, crypto::random_key(""), settles, checks.get_executor(), cfg.declaration_bytes_in_flight),
        handler(routes),
        metrics(handler.route_names()),
        server(io, server_options_of(cfg, max_connections, tls, metrics), handler, access),
        poll_timer(io.main()) {
    configure_routes();
  }

  /// What the routes need to know of this node before the first request.
  void configure_routes() {
    routes.node.scheme = tls ? "https" : "http";
    routes.node.role = cfg.follow ? "follower" : cfg.cluster_listen ? "primary" : "standalone";
    routes.metrics = {cfg.metrics, &metrics};
  }

  /// A primary's followers authenticate writes with its keyring: the FEED sends them the
  /// file's text (hashes only) whenever it changed.
  void share_keyring() {
    if (auto text = config::read_file(auth::keyring_path(cfg.data_dir))) engine.set_keyring(std::move(*text));
  }

  /// Every 250 ms on the main context: changed keys (payees, the followers' copy, removed
  /// providers), a changed certificate, and the buffered log lines.
  void watch_files() {
    poll_timer.expires_after(file_poll_interval);
    poll_timer.async_wait([this](boost::system::error_code ec) {
      if (ec || stopping) return;
      auto change = keys.reload();
      if (change.changed) {
        engine.set_payees(startup::payees_of(*keys.current()));
        if (cfg.cluster_listen) share_keyring();
      }
      for (auto& removed : change.removed) engine.forget_provider(removed);
      if (tls) tls->reload(false);
      log.flush();
      watch_files();
    });
  }

  config::bazaar_config cfg;
  telemetry::logger log;
  std::shared_ptr<http::tls_certificates> tls;
  http::io_pool io;
  auth::key_store keys;
  catalog::engine engine;
  http::access_log access;
  routes::settle_batcher settles;
  // Declarations are parsed and checked on a thread of their own, so reads never wait behind them.
  net::thread_pool checks{1};
  routes::bazaar_routes routes;
  routes::bazaar_handler handler;
  http::server_metrics metrics;
  http::server server;
  // The file watch and the stop share the main context's one thread and this flag, set on it:
  // a stop must not race a handler that is re-arming its timer.
  net::steady_timer poll_timer;
  bool stopping = false;
  std::string url;
  std::thread io_runner;
  std::once_flag stop_once;
  expected<void> stopped;
};

bazaar::bazaar(std::unique_ptr<running> r) : running_(std::move(r)) {}

bazaar::~bazaar() {
  if (running_) stop();
}

expected<std::unique_ptr<bazaar>> bazaar::start(caf::actor_system& sys, const config::bazaar_config& cfg,
                                                const bazaar_setup& setup, telemetry::logger log) {
  auto refuse = [&](const error& e) {
    if (e.field.empty()) log.error(e.reason);
    else log.error(e.reason, {{"field", e.field}});
    return e;
  };
  if (auto ready = startup::prepare_data_dir(cfg.data_dir); !ready) return refuse(ready.error());
  auto keyring = startup::read_keyring(cfg.data_dir);
  if (!keyring) return refuse(keyring.error());
  auto max_connections = startup::connection_limit(cfg.max_connections);
  if (!max_connections) return refuse(max_connections.error());
  auto certificates = certificates_of(cfg, log);
  if (!certificates) return refuse(certificates.error());

  auto signing = startup::signing_of(cfg, system_wall_clock{}.now_ms(), log);
  if (!signing) return refuse(signing.error());

  auto r = std::make_unique<running>(sys, cfg, log, std::move(*keyring), std::move(*certificates), *max_connections,
                                     std::move(*signing));
  r->engine.set_payees(startup::payees_of(*r->keys.current()));
  auto fail = [&](const error& e) {
    r->engine.stop();
    r->engine.await_stopped();
    return refuse(e);
  };
  if (cfg.cluster_listen) {
    // Each run of a primary is a new epoch: a follower that held another one takes a copy.
    auto port = catalog::publish_feed(sys, r->engine.feed(), *cfg.cluster_listen);
    if (!port) return fail(port.error());
    auto feed = config::to_string({cfg.cluster_listen->host, *port});
    if (auto subject = setup.cluster_subject()) log.info("the cluster feed is mutual TLS", {{"feed", feed}, {"certificate", *subject}});
    else log.warning("the cluster feed is plain BASP: loopback only, for tests and development", {{"feed", feed}});
  }
  if (cfg.follow)
    log.info(setup.cluster_subject() ? "following the primary's feed over mutual TLS"
                                     : "following the primary's feed over plain BASP (loopback only)",
             {{"primary", config::to_string(*cfg.follow)}});
  try {
    r->server.start();
  } catch (const std::exception& e) {
    return fail(error{errc::unavailable, "listen", "cannot listen on " + config::to_string(cfg.listen) + ": " + e.what()});
  }
  if (cfg.cluster_listen) r->share_keyring();
  r->watch_files();
  r->url = std::string{r->tls ? "https://" : "http://"} + config::to_string({cfg.listen.host, r->server.port()});
  r->io_runner = std::thread{[&io = r->io] { io.run(); }};
  log.info("listening on " + r->url + " with " + std::to_string(r->engine.snapshots().load()->items.size()) +
               " items; data in " + cfg.data_dir.string(),
           {{"maxConnections", std::to_string(*max_connections)}});
  return std::unique_ptr<bazaar>{new bazaar{std::move(r)}};
}

const std::string& bazaar::url() const { return running_->url; }
std::uint16_t bazaar::port() const { return running_->server.port(); }
catalog::engine& bazaar::engine() { return running_->engine; }

void bazaar::reload_certificate() {
  auto& r = *running_;
  net::post(r.io.main(), [&r] {
    if (r.stopping) return;
    if (r.tls) r.tls->reload(true);
    else r.log.info("no TLS certificate to re-read");
  });
}

expected<void> bazaar::stop() {
  auto& r = *running_;
  std::call_once(r.stop_once, [&r] {
    net::post(r.io.main(), [&r] {
      r.stopping = true;
      r.log.info("stopping: draining connections");
      r.poll_timer.cancel();
      // Once every connection is done, nothing else on the io threads matters.
      r.server.drain([&r] { r.io.stop(); });
    });
    r.io_runner.join();
    r.checks.join();
    auto flushed = r.engine.flush();
    // The actors end here, before the routes and sessions they answer into: a completion one
    // still held (a declaration's, a settle's) is answered as it goes, and that answer, posted
    // to a stopped io context, runs below and releases its session, write slot and body bytes
    // while all of them still live.
    r.engine.stop();
    r.engine.await_stopped();
    r.io.run_posted();
    r.access.flush();
    if (flushed) {
      r.log.info("stopped; catalog saved");
    } else {
      r.stopped = error{errc::io_error, "catalog.json", "stopped; the catalog could not be saved: " + flushed.error().reason};
      r.log.error(r.stopped.error().reason);
    }
  });
  return r.stopped;
}

}  // namespace z402
