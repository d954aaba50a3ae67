#pragma once
// The whole Bazaar as a library call: what `z402-bazaar serve` runs (the catalog engine and its
// persistence, the HTTP or HTTPS listener with /metrics and /discovery/mcp, the cluster role,
// the watched key and certificate files) started inside a caller's own caf::actor_system, and
// stopped gracefully. `z402-bazaar serve` is a command line over this and nothing else; a rail
// node that embeds the whole Bazaar does what it does (docs/embedding.md).
//
// The two steps follow CAF's own order: what the actor system needs (the catalog's message
// types, the middleman for a cluster role) goes into its config before it exists
// (bazaar_setup::prepare); the rest starts in the running system (bazaar::start).
#include "z402/catalog/engine.hpp"
#include "z402/config/bazaar_config.hpp"
#include "z402/error.hpp"
#include "z402/telemetry/log.hpp"

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace z402 {

namespace catalog {
class cluster_credentials;
}

/// The actor system's part of a Bazaar. Keep it alive as long as the actor system whose config
/// it prepared: CAF reads the cluster credentials it holds for every cluster connection.
class bazaar_setup {
 public:
  /// Registers the catalog's types in `caf_cfg` and, for a primary or a follower, loads CAF's
  /// middleman: over mutual TLS when `cfg.cluster` names credentials (read and checked here;
  /// an error names the field), plain (loopback only) otherwise. The scheduler stays the
  /// caller's choice.
  static expected<bazaar_setup> prepare(caf::actor_system_config& caf_cfg, const config::bazaar_config& cfg);

  /// The subject of the cluster certificate, when the cluster is mutual TLS.
  std::optional<std::string> cluster_subject() const;

  bazaar_setup(bazaar_setup&&) noexcept;
  bazaar_setup& operator=(bazaar_setup&&) noexcept;
  ~bazaar_setup();

 private:
  bazaar_setup();
  std::unique_ptr<catalog::cluster_credentials> cluster_tls_;
};

/// One running Bazaar. Its io threads are its own; its actors run in the caller's system.
class bazaar {
 public:
  /// Checks the data directory (made when missing, and writable), the keyring, the TLS files and
  /// the connection limit against the fd limit; loads the catalog; starts the engine, the cluster
  /// role, the listener and the file watch; and answers once it listens. Every refusal is an
  /// error naming the field or file (the log says it too). `log` takes every line: the
  /// server's, the catalog's and (when cfg.access_log) one per request.
  static expected<std::unique_ptr<bazaar>> start(caf::actor_system& sys, const config::bazaar_config& cfg,
                                                 const bazaar_setup& setup, telemetry::logger log);

  /// "http://127.0.0.1:3000" or "https://[::1]:8443": where it listens, the port it was given
  /// when cfg.listen asked for port 0.
  const std::string& url() const;
  std::uint16_t port() const;
  /// The catalog it serves: settles and declarations from the embedding process go here.
  catalog::engine& engine();

  /// Reads the TLS certificate and key again now (what SIGHUP asks of the server); changed
  /// files are also read within 1 s without it.
  void reload_certificate();

  /// Stops gracefully, once: stops accepting, lets answers in progress finish (5 s at most),
  /// saves the catalog, ends its actors and io threads. An error when the catalog could not be
  /// saved. Callable from any thread but its own io threads; the destructor calls it.
  expected<void> stop();

  ~bazaar();
  bazaar(const bazaar&) = delete;
  bazaar& operator=(const bazaar&) = delete;

 private:
  struct running;  // what start() assembles (bazaar.cpp)
  explicit bazaar(std::unique_ptr<running> r);
  std::unique_ptr<running> running_;
};

}  // namespace z402
