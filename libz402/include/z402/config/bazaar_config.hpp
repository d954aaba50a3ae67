#pragma once
// The server's configuration: defaults, then <data-dir>/config.json if present (or --config
// FILE), then the command line. Validated before anything starts.
#include "z402/config/catalog_limits.hpp"
#include "z402/config/listen_address.hpp"
#include "z402/config/rail_terms.hpp"

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

namespace z402::config {

/// The cluster's credentials (config `cluster`): all three, or none. With them every cluster
/// link is mutual TLS under that CA; without, links are plain and loopback only.
struct cluster_files {
  std::filesystem::path ca;    // PEM: the cluster CA's certificates; the only ones trusted
  std::filesystem::path cert;  // PEM: this node's certificate (then its chain), signed by `ca`
  std::filesystem::path key;   // PEM: its private key; must not be readable by others
  bool empty() const { return ca.empty() && cert.empty() && key.empty(); }
};

struct bazaar_config {
  listen_address listen{"127.0.0.1", 3000};
  std::filesystem::path data_dir = "./z402-data";
  rail_terms terms = default_rail_terms();
  catalog_limits limits;
  bool allow_http_resources = false;  // plain-http resources, for local development only
  // Two io threads: under write load a declaration's body and its answer no longer wait a
  // whole round of busy readers on one thread (benchmarks/results/latest.md).
  std::size_t io_threads = 2;
  std::size_t actor_threads = 1;
  bool access_log = true;
  bool metrics = true;                   // GET /metrics
  /// Client connections open at once; 0: three quarters of the process's fd limit (what is left
  /// serves files, the log and the actors). Above it the listener waits for one to close.
  std::size_t max_connections = 0;
  std::chrono::seconds idle_timeout{60};     // a keep-alive connection with no request is closed
  std::chrono::seconds request_timeout{15};  // a request's header and body, or an answer's write
  /// Bytes of declaration bodies held at once, read or waiting for their checks; a body that
  /// does not fit waits unread (in the kernel's socket buffers) until earlier ones are done.
  /// 4 MiB: eight of a full catalog's 510 KB heartbeats, while the one checks thread works
  /// through them in turn (http/byte_budget.hpp).
  std::size_t declaration_bytes_in_flight = 4u << 20;
  std::filesystem::path tls_certificate;  // both set: HTTPS (PEM chain and key)
  std::filesystem::path tls_key;
  // More than one node: a primary publishes its FEED here; a follower follows the
  // primary whose FEED is there. At most one of the two.
  std::optional<listen_address> cluster_listen;
  std::optional<listen_address> follow;
  cluster_files cluster;
};

/// Parses "HOST:PORT" into the config (refused, field "listen", otherwise).
expected<void> set_listen(bazaar_config& cfg, std::string_view host_port);

/// Applies a JSON config file over `cfg`, or says why not: refused with the key as the field
/// (the reason names it too), or the file's read error.
/// Keys: listen, terms, allowHttpResources, ioThreads, actorThreads, accessLog, metrics,
/// tls.{certificate,key}, cluster.{ca,cert,key}, connections.{max,idleTimeoutSeconds,requestTimeoutSeconds,declarationBytesInFlight}, limits.{maxItemsPerProvider,maxItems,maxCatalogBytes,
/// maxPaymentItemsPerProvider,retentionSeconds}. Relative TLS and cluster paths are relative to the file.
expected<void> apply_config_file(bazaar_config& cfg, const std::filesystem::path& file);

}  // namespace z402::config
