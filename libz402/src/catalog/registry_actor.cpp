#include "catalog/registry_actor.hpp"

#include <algorithm>
#include <string_view>
#include <utility>
#include <unordered_set>

namespace z402::catalog {
namespace {

using self_ptr = registry_actor::stateful_pointer<registry_state>;

// Publishes what changed. `whole`: counts and lastSeen too (the counts interval is over, or a
// flush), with the payments they count; otherwise only content, unless nothing is held back or
// a content change brought payments, when the two are the same publication.
void publish(self_ptr self, bool whole) {
  auto& st = self->state;
  auto now = self->clock().now();
  std::shared_ptr<const std::vector<payment_record>> payments;
  // Counts a content publication leaves held wait for the counts interval, unless it is over.
  if (whole || !st.counts_held || st.whole_due || st.count_publications.changed(self, atom::counts::value)) {
    st.shown = st.items;
    st.shown_bytes = st.bytes;
    st.counts_held = false;
    st.whole_due = false;
    if (!st.payments.empty()) payments = std::make_shared<const std::vector<payment_record>>(std::exchange(st.payments, {}));
    st.count_publications.acted(now);
  }
  // The index holds positions and contents, which only these changes move.
  if (st.content_changed || !st.indexes) st.indexes = content_indexes::after(st.store->load());
  st.content_changed = false;
  auto published = make_snapshot(st.ctx.epoch, ++st.version, st.shown, st.shown_bytes, st.items_of.size(), st.ctx.clock->now_ms(),
                                 st.indexes, std::move(payments));
  st.store->publish(published);
  if (st.persistence) self->send(st.persistence, atom::persist::value, published);
  for (auto& w : st.watchers) self->send(w, atom::published::value, published);
  st.publications.acted(now);
  for (auto& rp : st.waiting) rp.deliver(caf::unit);
  st.waiting.clear();
}

// What `change` would do to the totals, without doing it.
struct totals {
  std::size_t items;
  std::size_t bytes;
};

totals after(registry_state& st, const item_change& change) {
  totals t{st.items.size(), st.bytes};
  for (auto seq : change.removed)
    if (auto pos = position_of(st.items, seq); holds(st.items, pos, seq)) {
      --t.items;
      t.bytes -= (*pos)->json_size();
    }
  for (auto& it : change.upserts) {
    auto pos = position_of(st.items, it->record().seq);
    if (holds(st.items, pos, it->record().seq)) {
      t.bytes -= (*pos)->json_size();
    } else {
      ++t.items;
    }
    t.bytes += it->json_size();
  }
  return t;
}

// `it`, the new content of the item at `at`, as the next content publication shows it: with
// the paid calls last published there, since the payments of any counted after are not saved
// with a content publication.
item_ptr shown_version(const item_ptr& it, const item_ptr& shown) {
  auto& was = shown->record();
  if (it->record().usage == was.usage) return it;
  auto r = it->record();
  r.usage = was.usage;
  return make_item(std::move(r), it->rendered_day());
}

void show(registry_state& st, std::size_t at, item_ptr it) {
  auto pos = st.shown.begin() + static_cast<std::ptrdiff_t>(at);
  st.shown_bytes += it->json_size() - (*pos)->json_size();
  st.shown.set(pos, std::move(it));
}

struct applied {
  bool content = false;  // items added, removed or rewritten
  bool counts = false;   // items whose counts or lastSeen alone changed
};

// Applies `change` to `items`, and its content to `shown`.
applied apply(registry_state& st, const std::string& provider, const item_change& change) {
  applied done;
  auto& mine = st.items_of[provider];
  for (auto seq : change.removed)
    if (auto pos = position_of(st.items, seq); holds(st.items, pos, seq)) {
      auto at = pos.position();
      st.bytes -= (*pos)->json_size();
      st.shown_bytes -= st.shown[at]->json_size();
      st.items.erase(pos);
      st.shown.erase(st.shown.begin() + static_cast<std::ptrdiff_t>(at));
      --mine;
      done.content = true;
    }
  for (auto& it : change.upserts) {
    auto pos = position_of(st.items, it->record().seq);
    auto at = pos.position();
    if (holds(st.items, pos, it->record().seq)) {
      st.bytes += it->json_size() - (*pos)->json_size();
      bool rewritten = (*pos)->record().content != it->record().content;
      st.items.set(pos, it);
      if (rewritten) show(st, at, shown_version(it, st.shown[at]));
      done.content |= rewritten;
      done.counts |= !rewritten;
    } else {
      st.items.insert(pos, it);  // new items have the highest seqs: this appends
      st.shown.insert(st.shown.begin() + static_cast<std::ptrdiff_t>(at), it);
      st.bytes += it->json_size();
      st.shown_bytes += it->json_size();
      ++mine;
      done.content = true;
    }
  }
  if (mine == 0) st.items_of.erase(provider);
  return done;
}

}  // namespace

snapshot_ptr first_snapshot(const item_list& loaded, std::uint64_t epoch, std::int64_t now_ms, std::uint64_t version) {
  item_list items = loaded;
  std::sort(items.begin(), items.end(), [](auto& a, auto& b) { return a->record().seq < b->record().seq; });
  std::size_t bytes = 0;
  std::unordered_set<std::string_view> providers;
  for (auto& it : items) {
    bytes += it->json_size();
    providers.insert(it->record().provider);
  }
  return make_snapshot(epoch, version, listing_items{items}, bytes, providers.size(), now_ms);
}

registry_actor::behavior_type registry(registry_actor::stateful_pointer<registry_state> self, engine_context ctx,
                                       std::shared_ptr<snapshot_store> store, persistence_actor persistence,
                                       std::chrono::milliseconds publish_interval,
                                       std::chrono::milliseconds counts_interval) {
  auto& st = self->state;
  st.ctx = std::move(ctx);
  st.store = std::move(store);
  st.persistence = std::move(persistence);
  st.publications = coalescer{publish_interval};
  st.count_publications = coalescer{counts_interval};
  // Start from what the engine published (first_snapshot): its items, its version and indexes.
  auto first = st.store->load();
  for (auto& i : first->items) apply(st, i->record().provider, item_change{{i}, {}, {}});
  st.version = first->version;
  st.indexes = first->indexes;
  st.content_changed = false;
  st.publications.acted(self->clock().now());  // version 1 was a publication: the intervals count from it
  st.count_publications.acted(self->clock().now());
  if (st.persistence) self->send(st.persistence, atom::persist::value, first);
  return {
      [=](atom::commit, const std::string& provider, const item_change& change, bool may_refuse) -> caf::result<void> {
        auto& st = self->state;
        // A change may not push a budget over (or further over) its limit; one that shrinks
        // lands anyway, and so do counts and evictions (may_refuse false): nothing acknowledged
        // is lost to a full catalog.
        auto t = after(st, change);
        auto& limits = st.ctx.limits;
        bool over = (t.items > limits.max_items && t.items > st.items.size()) ||
                    (t.bytes > limits.max_catalog_bytes && t.bytes > st.bytes);
        if (may_refuse && over) return make_error(errc::catalog_full);
        // Made only now: a promise takes the reply over. Untyped, since CAF 0.17's typed promise
        // of no value cannot deliver an empty reply.
        auto rp = self->make_response_promise();
        auto done = apply(st, provider, change);
        st.payments.insert(st.payments.end(), change.payments.begin(), change.payments.end());
        st.content_changed |= done.content;
        st.counts_held |= done.counts || !done.content;
        if (done.content) {
          st.whole_due |= !change.payments.empty();
          st.waiting.push_back(rp);
          if (st.publications.changed(self, atom::publish::value)) publish(self, false);
        } else {
          if (st.count_publications.changed(self, atom::counts::value)) publish(self, true);
          rp.deliver(caf::unit);
        }
        return caf::delegated<void>{};
      },
      [=](atom::publish) {
        self->state.publications.woke();
        if (self->state.content_changed) publish(self, false);
      },
      [=](atom::counts) {
        self->state.count_publications.woke();
        if (self->state.counts_held || self->state.content_changed) publish(self, true);
      },
      [=](atom::flush) {
        if (self->state.counts_held || self->state.content_changed) publish(self, true);
        auto rp = self->make_response_promise<std::uint64_t>();
        if (!self->state.persistence) {
          rp.deliver(self->state.version);
          return rp;
        }
        self->request(self->state.persistence, caf::infinite, atom::flush::value)
            .then([=](std::uint64_t on_disk) mutable { rp.deliver(on_disk); },
                  [=](caf::error& err) mutable { rp.deliver(std::move(err)); });
        return rp;
      },
      [=](atom::watch, publication_watcher& w) {
        // The watcher was made from the current snapshot: it needs only what comes after.
        self->state.watchers.push_back(std::move(w));
      },
  };
}

}  // namespace z402::catalog
