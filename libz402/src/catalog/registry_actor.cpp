#include "z402/catalog/registry_actor.hpp"

#include <algorithm>

namespace z402::catalog {
namespace {

std::size_t size_of(const item_list& items) {
  std::size_t n = 0;
  for (auto& i : items) n += i->json().size();
  return n;
}

void publish_now(registry_actor* self) {
  auto& st = self->state;
  auto next = std::make_shared<snapshot>();
  next->version = ++st.version;
  next->items.reserve(st.items.size());
  for (auto& [seq, it] : st.items) next->items.push_back(it);
  next->bytes = st.bytes;
  next->providers = st.seqs_of.size();
  snapshot_ptr published = std::move(next);
  st.store->publish(published);
  if (st.persistence) self->send(st.persistence, atom::persist::value, published);
  st.publications.acted(self->clock().now());
  for (auto& rp : st.waiting) rp.deliver(true);
  st.waiting.clear();
}

void replace(registry_state& st, const std::string& provider, const item_list& items) {
  auto& seqs = st.seqs_of[provider];
  for (auto seq : seqs) {
    auto it = st.items.find(seq);
    st.bytes -= it->second->json().size();
    st.items.erase(it);
  }
  seqs.clear();
  for (auto& i : items) {
    st.items[i->record().seq] = i;
    st.bytes += i->json().size();
    seqs.push_back(i->record().seq);
  }
  if (seqs.empty()) st.seqs_of.erase(provider);
}

}  // namespace

caf::behavior registry(registry_actor* self, engine_context ctx, snapshot_store* store, caf::actor persistence,
                       std::chrono::milliseconds publish_interval, item_list initial) {
  auto& st = self->state;
  st.ctx = std::move(ctx);
  st.store = store;
  st.persistence = std::move(persistence);
  st.publications = coalescer{publish_interval};
  std::map<std::string, item_list> by_provider;
  for (auto& i : initial) by_provider[i->record().provider].push_back(i);
  for (auto& [provider, items] : by_provider) replace(st, provider, items);
  publish_now(self);
  return {
      [=](atom::commit, const std::string& provider, const item_list& items, bool may_refuse) {
        auto& st = self->state;
        auto rp = self->make_response_promise<bool>();
        std::size_t old_count = 0, old_bytes = 0;
        if (auto it = st.seqs_of.find(provider); it != st.seqs_of.end()) {
          old_count = it->second.size();
          for (auto seq : it->second) old_bytes += st.items.at(seq)->json().size();
        }
        auto new_count = st.items.size() - old_count + items.size();
        auto new_bytes = st.bytes - old_bytes + size_of(items);
        // A change may not push a budget over (or further over) its limit; one that shrinks
        // lands anyway, and so do counts and evictions (may_refuse false): nothing acknowledged
        // is lost to a full catalog.
        auto& limits = st.ctx.limits;
        bool over = (new_count > limits.max_items && new_count > st.items.size()) ||
                    (new_bytes > limits.max_catalog_bytes && new_bytes > st.bytes);
        if (may_refuse && over) {
          rp.deliver(make_error(ec::catalog_full, "the catalog is full"));
          return rp;
        }
        replace(st, provider, items);
        st.waiting.push_back(rp);
        if (st.publications.changed(self, atom::publish::value)) publish_now(self);
        return rp;
      },
      [=](atom::publish) {
        self->state.publications.woke();
        publish_now(self);
      },
      [=](atom::flush) {
        if (self->state.publications.pending()) publish_now(self);
        auto rp = self->make_response_promise<bool>();
        if (!self->state.persistence) {
          rp.deliver(true);
          return rp;
        }
        self->request(self->state.persistence, caf::infinite, atom::flush::value)
            .then([=](bool ok) mutable { rp.deliver(ok); }, [=](caf::error& err) mutable { rp.deliver(std::move(err)); });
        return rp;
      },
  };
}

}  // namespace z402::catalog
