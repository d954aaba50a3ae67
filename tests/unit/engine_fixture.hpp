#pragma once
// The one base fixture of the suites that drive the catalog engine (catalog, settle): CAF's
// deterministic test coordinator, a manual wall clock moved together with CAF's timer clock, and
// declarations that run to their answer.
#include "test.hpp"

#include <caf/test/dsl.hpp>

#include "fixtures.hpp"
#include "z402/catalog/engine.hpp"
#include "z402/core/wall_clock.hpp"

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace z402::test {

// 2026-11-30T10:00:00.000Z
inline constexpr std::int64_t start_ms = 1796032800000;

/// `calls` paid calls on `day` and none before it (when: unknown).
inline catalog::daily_counts calls_on(std::int64_t day, std::uint32_t calls) {
  catalog::daily_counts::ring ring{};
  ring.back() = calls;
  return {day, ring, -1};
}

/// The paid calls of an item's newest day.
inline std::uint64_t newest_calls(const catalog::item_record& r) { return r.usage.on(r.usage.newest_day()); }

/// An actor system config as the server's, as far as the catalog needs it: its message types
/// and error category registered.
struct catalog_config : caf::actor_system_config {
  catalog_config() { catalog::register_types(*this); }
};

struct engine_fixture : test_coordinator_fixture<catalog_config> {
  config::rail_terms terms = config::default_rail_terms();
  std::shared_ptr<manual_wall_clock> wall;
  std::unique_ptr<catalog::engine> engine;

  explicit engine_fixture(std::int64_t start = start_ms) : wall(std::make_shared<manual_wall_clock>(start)) {}
  ~engine_fixture() override {
    engine.reset();  // sends the exits before the coordinator's final run (timers re-arm otherwise)
  }

  /// What the next start_engine signs the catalog with (taken by it); none: not signed.
  std::optional<catalog::engine_options::signing_setup> signing;
  /// What the next start_engine gives engine_options::max_settles_in_flight.
  std::size_t max_settles_in_flight = catalog::engine_options{}.max_settles_in_flight;

  /// A new engine (the previous one stopped) on the test coordinator, PERSISTENCE included.
  void start_engine(config::catalog_limits limits = {}, std::vector<catalog::item_record> initial = {},
                    std::filesystem::path file = {}, std::filesystem::path payments_file = {}) {
    engine.reset();
    run();
    catalog::engine_options options;
    options.limits = limits;
    options.clock = wall;
    options.initial = std::move(initial);
    options.catalog_file = std::move(file);
    options.payments_file = std::move(payments_file);
    options.persistence_thread = false;  // driven by the test coordinator like the other actors
    // Every count is published as it is answered: these suites check what is counted, each
    // read right after its answer; the counts interval itself is the actors suite's.
    options.counts_interval = std::chrono::milliseconds{0};
    options.max_settles_in_flight = max_settles_in_flight;
    options.signing = std::exchange(signing, std::nullopt);
    engine = std::make_unique<catalog::engine>(sys, std::move(options));
    sched.run();
  }

  /// Moves the wall clock and CAF's timer clock together, then runs what became due.
  void advance(std::chrono::milliseconds d) {
    wall->advance(d);
    sched.clock().advance_time(d);
    sched.run();
  }

  /// Declares `items` for `provider` (checked for `pay_to` first) and runs until it is answered.
  catalog::write_outcome declare_items(const std::string& provider, const std::string& pay_to, boost::json::array items,
                                       std::string digest = {}) {
    auto checked = rules::validate_declaration(declaration_of(std::move(items)), {terms, pay_to, false, 128});
    CAF_REQUIRE(checked.has_value());
    std::optional<catalog::write_outcome> outcome;
    engine->declare(provider, catalog::make_declare_command(std::move(*checked), std::move(digest)),
                    catalog::write_completion{[&](catalog::write_outcome o) { outcome = std::move(o); },
                                              catalog::write_outcome::unavailable("dropped")});
    return run_until_answered(outcome);
  }

  /// Runs the actors until `outcome` is set: at once, or after the REGISTRY's coalescing
  /// interval (1 ms here: 10 ms covers it).
  catalog::write_outcome run_until_answered(std::optional<catalog::write_outcome>& outcome) {
    sched.run();
    if (!outcome) advance(std::chrono::milliseconds{10});
    CAF_REQUIRE(outcome.has_value());
    return *outcome;
  }

  catalog::snapshot_ptr snap() const { return engine->snapshots().load(); }
};

}  // namespace z402::test
