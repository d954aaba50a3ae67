#include "z402/catalog/engine.hpp"

#include "z402/catalog/persistence_actor.hpp"
#include "z402/catalog/provider_actor.hpp"
#include "z402/catalog/registry_actor.hpp"
#include "z402/wire/iso_time.hpp"

namespace z402::catalog {

engine::engine(caf::actor_system& sys, engine_options options) : sys_(sys) {
  ctx_.limits = options.limits;
  ctx_.clock = options.clock;
  auto today = wire::utc_day(ctx_.clock->now_ms());
  item_list initial;
  std::uint64_t max_seq = 0;
  for (auto& r : options.initial) {
    max_seq = std::max(max_seq, r.seq);
    auto provider = r.provider;
    auto it = make_item(std::move(r), today);
    initial.push_back(it);
    initial_of_[provider].push_back(it);
  }
  ctx_.next_seq->store(max_seq + 1);
  if (!options.catalog_file.empty())
    persistence_ = sys_.spawn(catalog::persistence, options.catalog_file, options.persist_interval);
  registry_ = sys_.spawn(catalog::registry, ctx_, &store_, persistence_, options.publish_interval, std::move(initial));
  // Providers with items on disk own their timers from the start, not from their next message.
  std::vector<std::string> names;
  for (auto& [name, items] : initial_of_) names.push_back(name);
  for (auto& name : names) provider(name);
}

engine::~engine() { stop(); }

caf::actor engine::provider(const std::string& name) {
  std::lock_guard<std::mutex> guard{providers_mutex_};
  auto& hdl = providers_[name];
  if (!hdl) {
    item_list initial;
    if (auto it = initial_of_.find(name); it != initial_of_.end()) {
      initial = std::move(it->second);
      initial_of_.erase(it);
    }
    hdl = sys_.spawn(catalog::provider, ctx_, registry_, name, std::move(initial));
  }
  return hdl;
}

void engine::declare(const std::string& name, declare_command cmd, write_completion done) {
  caf::anon_send(provider(name), atom::declare::value, std::move(cmd), std::move(done));
}

void engine::forget_provider(const std::string& name) {
  caf::actor hdl;
  {
    std::lock_guard<std::mutex> guard{providers_mutex_};
    if (auto it = providers_.find(name); it != providers_.end()) {
      hdl = it->second;
      providers_.erase(it);
    }
  }
  if (hdl) caf::anon_send(hdl, atom::forget::value);
}

void engine::stop() {
  std::lock_guard<std::mutex> guard{providers_mutex_};
  for (auto& [name, hdl] : providers_) caf::anon_send_exit(hdl, caf::exit_reason::user_shutdown);
  providers_.clear();
  if (registry_) caf::anon_send_exit(registry_, caf::exit_reason::user_shutdown);
  if (persistence_) caf::anon_send_exit(persistence_, caf::exit_reason::user_shutdown);
  registry_ = nullptr;
  persistence_ = nullptr;
}

}  // namespace z402::catalog
