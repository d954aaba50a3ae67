#include "z402/catalog/provider_actor.hpp"

#include "z402/wire/iso_time.hpp"

#include <algorithm>
#include <limits>

namespace z402::catalog {
namespace {

using item_map = std::map<std::string, item_ptr>;

item_list values_of(const item_map& items) {
  item_list out;
  out.reserve(items.size());
  for (auto& [key, it] : items) out.push_back(it);
  return out;
}

// Arms one timer for the earliest of: an item's retention deadline, or the next UTC midnight
// when some item shows paid calls for today.
void arm_timer(provider_actor* self) {
  auto& st = self->state;
  auto now = st.ctx.clock->now_ms();
  auto today = wire::utc_day(now);
  auto wake = std::numeric_limits<std::int64_t>::max();
  for (auto& [key, it] : st.items) {
    wake = std::min(wake, it->record().last_activity_ms() + st.ctx.limits.retention.count());
    if (it->record().paid_calls_on(today) > 0) wake = std::min(wake, (today + 1) * wire::ms_per_day);
  }
  if (wake == std::numeric_limits<std::int64_t>::max()) return;
  auto gen = ++st.timer_generation;
  self->delayed_send(self, std::chrono::milliseconds{std::max<std::int64_t>(0, wake - now)}, atom::tick::value, gen);
}

// Hands the new item set to the REGISTRY and adopts it once readers can see it. `await`
// keeps this provider's writes in order: the next message waits for the registry's answer.
template <class OnOk, class OnError>
void commit(provider_actor* self, item_map next, OnOk on_ok, OnError on_error) {
  auto list = values_of(next);
  self->request(self->state.registry, caf::infinite, atom::commit::value, self->state.provider, std::move(list))
      .await(
          [=](bool) mutable {
            self->state.items = std::move(next);
            arm_timer(self);
            on_ok();
          },
          [=](caf::error& err) { on_error(err); });
}

item_map upsert(const provider_state& st, const declare_command& cmd, std::int64_t now) {
  auto today = wire::utc_day(now);
  item_map next;
  // Payment-only items give way to the provider's first declaration (catalog.md §3).
  for (auto& [key, it] : st.items)
    if (it->record().declared) next.emplace(key, it);
  for (auto& declared : cmd.items) {
    auto key = declared.identity.key();
    item_record r;
    if (auto found = next.find(key); found != next.end()) {
      r = found->second->record();
      if (r.fields != declared.fields) {
        r.fields = declared.fields;
        r.last_updated_ms = now;
      }
    } else {
      r.provider = st.provider;
      r.identity = declared.identity;
      r.fields = declared.fields;
      r.seq = st.ctx.next_seq->fetch_add(1);
      r.last_updated_ms = now;
      r.paid_day = today;
    }
    r.declared = true;
    r.last_seen_ms = now;
    next[key] = make_item(std::move(r), today);
  }
  return next;
}

// Drops expired items and re-renders those whose paidCallsToday changed with the day.
item_map swept(const provider_state& st, std::int64_t now, bool& changed) {
  auto today = wire::utc_day(now);
  item_map next;
  changed = false;
  for (auto& [key, it] : st.items) {
    auto& r = it->record();
    if (r.last_activity_ms() + st.ctx.limits.retention.count() <= now) {
      changed = true;
      continue;
    }
    if (it->rendered_day() != today && r.paid_calls_on(it->rendered_day()) != r.paid_calls_on(today)) {
      next.emplace(key, make_item(r, today));
      changed = true;
    } else {
      next.emplace(key, it);
    }
  }
  return next;
}

}  // namespace

caf::behavior provider(provider_actor* self, engine_context ctx, caf::actor registry, std::string name,
                       item_list initial) {
  auto& st = self->state;
  st.ctx = std::move(ctx);
  st.registry = std::move(registry);
  st.provider = std::move(name);
  for (auto& it : initial) st.items.emplace(it->record().identity.key(), it);
  arm_timer(self);
  return {
      [=](atom::declare, const declare_command& cmd, const write_completion& done) {
        auto& st = self->state;
        auto now = st.ctx.clock->now_ms();
        auto next = upsert(st, cmd, now);
        if (next.size() > st.ctx.limits.max_items_per_provider) {
          done({write_outcome::status::refused,
                "a provider may list at most " + std::to_string(st.ctx.limits.max_items_per_provider) + " items", 0, 0});
          return;
        }
        auto accepted = cmd.items.size();
        commit(
            self, std::move(next), [=] { done({write_outcome::status::ok, {}, accepted, now}); },
            [=](const caf::error& err) {
              if (err.category() == caf::atom("z402"))
                done({write_outcome::status::refused, err.context().get_as<std::string>(0), 0, 0});
              else
                done(write_outcome::unavailable("the catalog is shutting down"));
            });
      },
      [=](atom::tick, std::uint64_t generation) {
        auto& st = self->state;
        if (generation != st.timer_generation) return;
        bool changed = false;
        auto next = swept(st, st.ctx.clock->now_ms(), changed);
        if (changed)
          commit(self, std::move(next), [] {}, [](const caf::error&) {});
        else
          arm_timer(self);
      },
      [=](atom::forget) {
        commit(self, {}, [=] { self->quit(); }, [=](const caf::error&) { self->quit(); });
      },
  };
}

}  // namespace z402::catalog
