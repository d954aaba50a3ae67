#pragma once
// The load of `z402-load test`: requests to any z402 Bazaar over HTTP or HTTPS, open loop by
// default (each request has a due time from the rate; its latency counts from then, so a server
// that stalls cannot hide the queue behind it: coordinated omission), or closed loop. Every
// latency goes into constant-memory histograms per endpoint, failures too.
#include "histogram.hpp"

#include <boost/asio/ssl/context.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace z402::bench {

/// What a request does. `settle` reports a payment for one of the run's own items; `declare` is
/// the provider's heartbeat of those items, on its own cadence (never in the mix).
enum class endpoint : std::size_t { list, search, resource, mcp, settle, declare, count };
inline constexpr std::array<const char*, static_cast<std::size_t>(endpoint::count)> endpoint_names{
    "list", "search", "resource", "mcp", "settle", "declare"};

/// The width of a payment's nonce: 16 hex digits of the run, 4 of the connection, 12 of its count.
inline constexpr std::size_t nonce_width = 32;

/// One prepared request: what it asks and how.
struct prepared_request {
  endpoint kind;
  std::string text;  // the whole request, header and body, as sent
  /// Where `nonce_width` placeholder characters stand in `text` that each send replaces with a
  /// nonce of its own (a settle: every payment unique); npos when none.
  std::size_t nonce_at = std::string::npos;
};

struct test_target {
  std::string scheme;       // http or https
  std::string host;         // as in the URL: Host and SNI
  std::string port;
  std::string connect_host;  // where connections go (--connect-to, or host)
  std::string connect_port;
  std::string base_path;    // the URL's path, without a trailing slash
  std::shared_ptr<boost::asio::ssl::context> tls;  // https only
};

struct test_plan {
  test_target target;
  std::vector<prepared_request> requests;  // taken in turn, so the mix holds its weights
  std::vector<prepared_request> declarations;  // none, or the heartbeat sent every declare_every
  std::chrono::milliseconds declare_every{30'000};
  std::string run_id;  // 16 hex digits: the first part of every nonce, so no two runs share a payment
  bool open_loop = true;
  double rate = 100;          // requests per second, all connections together (open loop)
  std::size_t connections = 16;
  std::size_t threads = 1;
  std::chrono::milliseconds warmup{0};
  std::chrono::milliseconds duration{10'000};
  std::uint64_t max_requests = 0;  // 0: no cap
  std::chrono::milliseconds drop_after{5'000};  // a request that cannot start this late is dropped
  bool gzip = false;             // Accept-Encoding: gzip, and a sample of answers checked to be gzip
  bool progress = false;         // a line each second on stderr
};

/// One endpoint's record over the measured part of the run.
struct endpoint_record {
  histogram corrected;  // µs from when each request was due (open loop) or sent (closed)
  histogram service;    // µs from its send
  std::uint64_t due = 0;       // requests due in the measured window
  std::uint64_t ok = 0;        // answered 2xx
  std::uint64_t late = 0;      // started more than 1 ms after their due time
  std::uint64_t dropped = 0;   // could not start within drop_after: never sent
  std::map<std::string, std::uint64_t> errors;  // by cause ("status 503", "timeout", "io", ...)
  std::uint64_t gzip_checked = 0;  // answers of the sample that came gzip'd and read as gzip
  void merge(const endpoint_record& other);
};

struct second_record {
  std::uint64_t due = 0, ok = 0, failed = 0;
  std::uint64_t max_corrected = 0;
};

struct test_result {
  std::array<endpoint_record, static_cast<std::size_t>(endpoint::count)> endpoints;
  std::vector<second_record> seconds;  // measured seconds, in order
  double measured_seconds = 0;
  std::uint64_t connections_opened = 0;
  /// 2xx answers in the measured window per request connection (the declarer's left out), in
  /// no particular order: how evenly the server shared itself (one at 0 was starved).
  std::vector<std::uint64_t> answered_per_connection;
  histogram handshakes;  // µs per TLS handshake
  double generator_cpu_seconds = 0;
  /// Why the run cannot be trusted (a TLS failure, connections that could not be kept): empty
  /// when it can. The run stops as soon as it is known.
  std::string untrusted;
};

/// Runs the plan; `stop` ends it early (SIGINT). Connections are made first: one that cannot
/// be made (refused, TLS) ends the run untrusted before any load is sent.
test_result run_test(const test_plan& plan, const std::atomic<bool>& stop);

/// Sends `request` (the whole text) to the target on a connection of its own (what the run reads
/// first, declares and delists), its answer's body in `body`; the status, or 0 with `why`.
unsigned send_once(const test_target& target, const std::string& request, std::string& body, std::string& why);

}  // namespace z402::bench
