#include "z402/catalog/provider_directory.hpp"

#include "catalog/provider_actor.hpp"

namespace z402::catalog {

provider_directory::provider_directory(caf::actor_system& sys, engine_context ctx, registry_actor registry,
                                       std::unordered_map<std::string, item_list> initial)
    : sys_(sys), ctx_(std::move(ctx)), registry_(std::move(registry)), initial_(std::move(initial)) {}

provider_actor provider_directory::get(const std::string& name) {
  std::lock_guard<std::mutex> guard{mutex_};
  auto& hdl = actors_[name];
  if (!hdl) {
    item_list items;
    if (auto it = initial_.find(name); it != initial_.end()) {
      items = std::move(it->second);
      initial_.erase(it);
    }
    hdl = sys_.spawn(provider, ctx_, registry_, name, std::move(items));
  }
  return hdl;
}

provider_actor provider_directory::remove(const std::string& name) {
  std::lock_guard<std::mutex> guard{mutex_};
  provider_actor hdl;
  if (auto it = actors_.find(name); it != actors_.end()) {
    hdl = std::move(it->second);
    actors_.erase(it);
  }
  return hdl;
}

std::vector<provider_actor> provider_directory::stop_all() {
  std::lock_guard<std::mutex> guard{mutex_};
  std::vector<provider_actor> stopped;
  for (auto& [name, hdl] : actors_) {
    caf::anon_send_exit(hdl, caf::exit_reason::user_shutdown);
    stopped.push_back(std::move(hdl));
  }
  actors_.clear();
  return stopped;
}

}  // namespace z402::catalog
