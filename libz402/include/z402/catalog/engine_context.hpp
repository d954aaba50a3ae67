#pragma once
// What every catalog actor shares: limits, the rail's terms, the wall clock, the listing-order
// counter and the counters an operator reads on /health.
#include "z402/catalog/wall_clock.hpp"
#include "z402/config/catalog_limits.hpp"
#include "z402/config/rail_terms.hpp"

#include <atomic>
#include <cstdint>
#include <memory>

namespace z402::catalog {

struct catalog_stats {
  std::atomic<std::uint64_t> settles_counted{0};
  std::atomic<std::uint64_t> settles_rejected{0};
};

struct engine_context {
  config::catalog_limits limits;
  config::rail_terms terms = config::default_rail_terms();
  bool allow_http_resources = false;
  std::shared_ptr<const wall_clock> clock;
  /// Source of item_record::seq: an item keeps its place in the listing for its whole life.
  std::shared_ptr<std::atomic<std::uint64_t>> next_seq = std::make_shared<std::atomic<std::uint64_t>>(1);
  std::shared_ptr<catalog_stats> stats = std::make_shared<catalog_stats>();
};

}  // namespace z402::catalog
