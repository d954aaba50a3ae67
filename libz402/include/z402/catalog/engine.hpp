#pragma once
// The catalog engine as an embedding rail node or the server starts it in its own
// caf::actor_system: REGISTRY, PERSISTENCE, and one PROVIDER per provider, spawned on demand.
#include "z402/catalog/catalog_file.hpp"
#include "z402/catalog/engine_context.hpp"
#include "z402/catalog/messages.hpp"

#include <caf/all.hpp>

#include <chrono>
#include <filesystem>
#include <mutex>
#include <string>
#include <unordered_map>

namespace z402::catalog {

struct engine_options {
  config::catalog_limits limits;
  std::shared_ptr<const wall_clock> clock = std::make_shared<system_wall_clock>();
  std::filesystem::path catalog_file;  // empty: nothing is written
  std::chrono::milliseconds publish_interval{10};
  std::chrono::milliseconds persist_interval{1000};
  std::vector<item_record> initial;    // loaded from disk
};

class engine {
 public:
  engine(caf::actor_system& sys, engine_options options);
  ~engine();
  engine(const engine&) = delete;
  engine& operator=(const engine&) = delete;

  /// Readers load snapshots here without waiting for any actor.
  const snapshot_store& snapshots() const { return store_; }

  /// Sends a validated declaration to its PROVIDER; `done` gets the outcome on the actor's thread.
  void declare(const std::string& provider, declare_command cmd, write_completion done);

  /// The provider was removed: its items leave the catalog.
  void forget_provider(const std::string& provider);

  caf::actor registry() const { return registry_; }
  const engine_context& context() const { return ctx_; }

  /// The PROVIDER of `name`, spawned on first use.
  caf::actor provider(const std::string& name);

  /// Stops every actor (after which declarations answer "unavailable").
  void stop();

 private:
  caf::actor_system& sys_;
  engine_context ctx_;
  snapshot_store store_;
  caf::actor persistence_;
  caf::actor registry_;
  std::mutex providers_mutex_;  // writers only: reads never touch it
  std::unordered_map<std::string, caf::actor> providers_;
  std::unordered_map<std::string, item_list> initial_of_;  // items loaded for providers not yet spawned
};

}  // namespace z402::catalog
