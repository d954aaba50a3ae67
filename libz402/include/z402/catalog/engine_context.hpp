#pragma once
// What every catalog actor shares: limits, the wall clock, the listing-order counter.
#include "z402/catalog/wall_clock.hpp"
#include "z402/config/catalog_limits.hpp"

#include <atomic>
#include <cstdint>
#include <memory>

namespace z402::catalog {

struct engine_context {
  config::catalog_limits limits;
  std::shared_ptr<const wall_clock> clock;
  /// Source of item_record::seq: an item keeps its place in the listing for its whole life.
  std::shared_ptr<std::atomic<std::uint64_t>> next_seq = std::make_shared<std::atomic<std::uint64_t>>(1);
};

}  // namespace z402::catalog
