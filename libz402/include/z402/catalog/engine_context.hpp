#pragma once
// What every catalog actor shares: limits, the rail's terms, the wall clock, the listing-order
// counter, the log and the counters an operator reads on /health and /metrics.
#include "z402/catalog/messages.hpp"
#include "z402/core/wall_clock.hpp"
#include "z402/config/catalog_limits.hpp"
#include "z402/config/rail_terms.hpp"
#include "z402/telemetry/log.hpp"

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace z402::catalog {

/// A follower's link to its primary, as /health names it (to_string): none on a node that
/// follows nobody.
enum class primary_link : int { none, reaching, connected, unreachable };

constexpr std::string_view to_string(primary_link link) {
  constexpr std::string_view names[] = {"none", "reaching", "connected", "unreachable"};
  return names[static_cast<int>(link)];
}

/// Written by the actors (relaxed atomics: each is a count, nothing is ordered by them), read
/// by /health and /metrics from any thread.
struct catalog_stats {
  std::atomic<std::uint64_t> settles_counted{0};
  std::atomic<std::uint64_t> settles_repeated{0};  // payments reported again: answered, not counted
  std::array<std::atomic<std::uint64_t>, settle_rejection_count> settles_rejected_by{};
  std::atomic<std::int64_t> last_saved_ms{0};  // Unix ms of the last successful catalog file write; 0: none yet
  std::atomic<std::uint64_t> save_failures{0};
  std::atomic<std::int64_t> save_failing_since_ms{0};  // Unix ms of the first failure since the last success; 0: saving works
  std::atomic<std::shared_ptr<const std::string>> last_save_error;  // the latest failure's reason
  // More than one node. A primary: how many followers its FEED feeds. A follower: the
  // link to its primary (replica_actor.hpp's primary_link) and when the primary was last heard.
  std::atomic<std::size_t> followers{0};
  std::atomic<primary_link> primary{primary_link::none};
  std::atomic<std::int64_t> primary_contact_ms{0};
  std::atomic<std::uint64_t> links_made{0};    // times a follower reached its primary
  std::atomic<std::uint64_t> copies_taken{0};  // whole catalogs a follower took (the rest came as changes)

  void count_rejection(settle_rejection cause) {
    settles_rejected_by[static_cast<std::size_t>(cause)].fetch_add(1, std::memory_order_relaxed);
  }
  std::uint64_t settles_rejected() const {
    std::uint64_t n = 0;
    for (auto& c : settles_rejected_by) n += c.load(std::memory_order_relaxed);
    return n;
  }
};

struct engine_context {
  config::catalog_limits limits;
  config::rail_terms terms = config::default_rail_terms();
  bool allow_http_resources = false;
  std::shared_ptr<const wall_clock> clock;
  /// Source of item_record::seq: an item keeps its place in the listing for its whole life.
  std::shared_ptr<std::atomic<std::uint64_t>> next_seq = std::make_shared<std::atomic<std::uint64_t>>(1);
  std::shared_ptr<catalog_stats> stats = std::make_shared<catalog_stats>();
  telemetry::logger log;  // the embedding program's sink; none: nothing is logged
  std::uint64_t epoch = 0;  // this run of the catalog (snapshot::epoch), drawn by the engine
};

/// What a declaration is checked against where it arrives: the terms, plain-http resources
/// allowed or not, the items a provider may declare. A follower checks declarations for its
/// primary, so the two must agree; the FEED sends the primary's, and a follower whose
/// own differ forwards no writes. Readable: it goes into the log line that says so.
std::string checks_of(const engine_context& ctx);

}  // namespace z402::catalog
