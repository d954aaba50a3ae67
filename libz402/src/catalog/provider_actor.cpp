#include "catalog/provider_actor.hpp"

#include "catalog/forward_deadline.hpp"

#include "z402/wire/iso_time.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <set>

namespace z402::catalog {
namespace {

using item_map = decltype(provider_state::items);
using self_ptr = provider_actor::stateful_pointer<provider_state>;

// Only what differs between the provider's items and `next` crosses to the REGISTRY: one
// walk over both maps, which share their key order.
item_change change_between(const item_map& now, const item_map& next) {
  item_change change;
  auto a = now.begin();
  auto b = next.begin();
  while (a != now.end() || b != next.end()) {
    if (b == next.end() || (a != now.end() && a->first < b->first)) {
      change.removed.push_back((a++)->second->record().seq);
    } else if (a == now.end() || b->first < a->first) {
      change.upserts.push_back((b++)->second);
    } else {
      if (a->second != b->second) change.upserts.push_back(b->second);
      ++a;
      ++b;
    }
  }
  return change;
}

bool declares(const item_map& items) {
  return std::any_of(items.begin(), items.end(), [](auto& kv) { return kv.second->record().declared; });
}

// One more paid call today, in the item's 30 days (docs/contract.md §5).
void count_paid_call(item_record& r, std::int64_t now) {
  r.usage.count(wire::utc_day(now), now);
  r.last_updated_ms = now;
}

// Arms one timer for the earliest of: an item's retention deadline, or the next UTC midnight
// when some item shows paid calls in its 30 days (today's count and the window move then). A live timer that fires no later is kept: an
// early tick only finds nothing to do and arms again, while a timer per change would cost a
// message through CAF's clock thread for every declaration and every batch of settles.
void arm_timer(self_ptr self) {
  auto& st = self->state;
  auto now = st.ctx.clock->now_ms();
  auto today = wire::utc_day(now);
  auto wake = std::numeric_limits<std::int64_t>::max();
  for (auto& [key, it] : st.items) {
    wake = std::min(wake, it->record().last_activity_ms() + st.ctx.limits.retention.count());
    if (it->record().usage.any_within(today)) wake = std::min(wake, (today + 1) * wire::ms_per_day);
  }
  if (wake == std::numeric_limits<std::int64_t>::max()) return;
  if (st.armed_for >= 0 && st.armed_for <= wake) return;
  st.armed_for = wake;
  auto gen = ++st.timer_generation;
  self->delayed_send(self, std::chrono::milliseconds{std::max<std::int64_t>(0, wake - now)}, atom::tick::value, gen);
}

// Hands the new item set to the REGISTRY and adopts it once readers can see it. `await`
// keeps this provider's changes in order: the next message waits for the registry's answer.
template <class OnOk, class OnError>
void commit(self_ptr self, item_map next, bool may_refuse, OnOk on_ok, OnError on_error,
            std::vector<payment_record> payments = {}) {
  auto change = change_between(self->state.items, next);
  change.payments = std::move(payments);
  self->request(self->state.registry, caf::infinite, atom::commit::value, self->state.provider, std::move(change),
                may_refuse)
      .await(
          [=]() mutable {
            self->state.items = std::move(next);
            arm_timer(self);
            on_ok();
          },
          [=](caf::error& err) mutable { on_error(err); });
}

// Counts on existing items always land, so they need no copy of the item map to fall back
// to: the new versions replace the old ones at once and only they cross to the REGISTRY. (A
// copy of 128 keyed entries per batch of settles was most of the actor's time over HTTP.)
template <class OnOk, class OnError>
void commit_in_place(self_ptr self, std::vector<std::pair<item_map::iterator, item_ptr>> versions,
                     std::vector<payment_record> payments, OnOk on_ok, OnError on_error) {
  auto& st = self->state;
  item_change change;
  change.payments = std::move(payments);
  for (auto& [at, it] : versions) {
    at->second = it;
    change.upserts.push_back(std::move(it));
  }
  // Counts move no retention deadline earlier; the only new wake-up they can need is midnight.
  auto midnight = (wire::utc_day(st.ctx.clock->now_ms()) + 1) * wire::ms_per_day;
  if (st.armed_for < 0 || st.armed_for > midnight) arm_timer(self);
  self->request(st.registry, caf::infinite, atom::commit::value, st.provider, std::move(change), false)
      .await([=]() mutable { on_ok(); }, [=](caf::error& err) mutable { on_error(err); });
}

item_map upsert(const provider_state& st, const declare_command& cmd, std::int64_t now) {
  auto today = wire::utc_day(now);
  item_map next;
  // Payment-only items give way to the provider's first declaration (docs/contract.md §3); one
  // that the declaration lists keeps its place and today's paid calls.
  item_map payment_only;
  for (auto& [key, it] : st.items) (it->record().declared ? next : payment_only).emplace(key, it);
  for (auto& declared : cmd.items) {
    auto key = declared.identity.key();
    item_record r;
    const item_ptr* existing = nullptr;
    if (auto f = next.find(key); f != next.end()) existing = &f->second;
    else if (auto p = payment_only.find(key); p != payment_only.end()) existing = &p->second;
    if (existing) {
      r = (*existing)->record();
      // Compared as served text: the content keeps no JSON tree.
      if (declared.content->json != r.content->json) {
        r.content = declared.content;
        r.last_updated_ms = now;
      } else if (!r.declared) {
        r.last_updated_ms = now;
      }
    } else {
      r.provider = st.provider;
      r.identity = declared.identity;
      r.content = declared.content;
      r.seq = st.ctx.next_seq->fetch_add(1);
      r.last_updated_ms = now;
    }
    r.declared = true;
    r.last_seen_ms = now;
    next[key] = make_item(std::move(r), today);
  }
  return next;
}

// The last declaration again: its items, seen now. Empty when one of them has left since.
std::optional<item_map> repeated(const provider_state& st, std::int64_t now) {
  auto today = wire::utc_day(now);
  item_map next = st.items;
  for (auto& key : st.last_keys) {
    auto it = next.find(key);
    if (it == next.end()) return std::nullopt;
    auto r = it->second->record();
    r.last_seen_ms = now;
    it->second = make_item(std::move(r), today);
  }
  return next;
}

// Drops expired items and re-renders those whose paidCallsToday or 30 days changed with the day.
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
    auto shown = it->rendered_day(), due = rendering_day(r, today);
    if (shown != due && (r.usage.on(shown) != r.usage.on(due) || r.usage.last_30_days(shown) != r.usage.last_30_days(due))) {
      next.emplace(key, make_item(r, today));
      changed = true;
    } else {
      next.emplace(key, it);
    }
  }
  return next;
}

// An item a batch of settles counted on, as it will be after the batch.
struct touched_item {
  item_record record;
  item_map::iterator at;  // its version in the provider's items (end() for a new one): valid while the batch's handler runs
};

// The result of counting one batch of settles, before the REGISTRY has taken it.
struct counted_batch {
  std::map<std::string, touched_item, std::less<>> touched;  // items changed by the batch, by key
  std::set<std::string> created;                // keys of new payment-only items
  std::vector<const std::string*> key_of;       // per event: its key in `touched` (null when rejected)
  std::vector<rules::payment_id> payment_of;    // per event
  settle_outcomes outcomes;
};

// The payments of the events counted: they cross to the REGISTRY with their counts.
std::vector<payment_record> counted_payments(const counted_batch& batch, std::int64_t now) {
  std::vector<payment_record> out;
  for (std::size_t i = 0; i < batch.outcomes.size(); ++i)
    if (batch.outcomes[i].state == settle_outcome::status::success) out.push_back({batch.payment_of[i], now});
  return out;
}

// Takes the provider's state as mutable only to note where each counted item is (touched_item::at).
counted_batch count_batch(provider_state& st, const settle_batch& batch, std::int64_t now) {
  counted_batch out;
  out.outcomes.resize(batch.size());
  out.key_of.resize(batch.size());
  out.payment_of.reserve(batch.size());
  for (auto& event : batch) out.payment_of.push_back(event.payment());
  bool declaring = declares(st.items);
  // How many payment-only items the provider has: counted only when a settle would add one, so a
  // batch of counts does not walk every item.
  std::optional<std::size_t> payment_only;
  auto payment_only_items = [&] {
    if (!payment_only)
      payment_only = static_cast<std::size_t>(
          std::count_if(st.items.begin(), st.items.end(), [](auto& kv) { return !kv.second->record().declared; }));
    return *payment_only;
  };
  for (std::size_t i = 0; i < batch.size(); ++i) {
    auto& event = batch[i];
    auto key = event.key();
    auto touched = out.touched.find(key);
    if (touched == out.touched.end()) {
      if (auto existing = st.items.find(key); existing != st.items.end()) {
        touched = out.touched.emplace(key, touched_item{existing->second->record(), existing}).first;
      } else if (declaring) {
        // Echoed metadata never creates an item for a provider that declares.
        auto identity = event.identity();
        out.outcomes[i] = settle_outcome::rejected(
            settle_rejection::not_declared, "paymentPayload.resource.url: this provider declares its items and none matches " + identity.type + " " +
            identity.resource + " " + identity.selector);
        continue;
      } else if (payment_only_items() >= st.ctx.limits.max_payment_items_per_provider) {
        out.outcomes[i] = settle_outcome::rejected(
            settle_rejection::payment_item_cap, "paymentPayload.resource.url: this provider already has " +
            std::to_string(st.ctx.limits.max_payment_items_per_provider) +
            " items listed from payments alone; a declaration lists more");
        continue;
      } else {
        auto fields = rules::payment_only_fields(event, st.ctx.terms, st.ctx.allow_http_resources);
        if (!fields) {
          out.outcomes[i] = settle_outcome::rejected(settle_rejection::invalid_echo, fields.error().message());
          continue;
        }
        item_record r;
        r.provider = st.provider;
        r.identity = event.identity();
        r.content = make_content(*fields, r.identity.selector);
        r.declared = false;
        r.seq = st.ctx.next_seq->fetch_add(1);
        touched = out.touched.emplace(key, touched_item{std::move(r), st.items.end()}).first;
        out.created.emplace(key);
        ++*payment_only;
      }
    }
    count_paid_call(touched->second.record, now);
    out.key_of[i] = &touched->first;
    out.outcomes[i] = settle_outcome::success();
  }
  return out;
}

// The provider's last declaration again (the same body digest), with every item it listed still
// here: a heartbeat, which only moves their lastSeen on. False, and nothing done, when it is not.
bool heartbeat(self_ptr self, const std::string& digest, const write_completion& done) {
  auto& st = self->state;
  auto now = st.ctx.clock->now_ms();
  auto next = digest.empty() || digest != st.last_digest ? std::nullopt : repeated(st, now);
  if (!next) return false;
  auto accepted = st.last_keys.size();
  commit(
      self, std::move(*next), false, [=] { done({write_outcome::status::ok, {}, accepted, now}); },
      [=](const caf::error&) { done(write_outcome::unavailable("the catalog is shutting down")); });
  return true;
}

// A forwarded write whose follower has stopped waiting for it (forward_deadline.hpp) is answered
// unavailable and changes nothing: the follower has answered 503 or is about to, and the client
// may have written again since, through another node.
bool refused_as_late(self_ptr self, std::int64_t deadline_ms, const write_completion& done) {
  if (!past_deadline(deadline_ms, steady_ms(self->clock()))) return false;
  self->state.ctx.log.info("a forwarded write reached the primary after its follower stopped waiting; not applied",
                           {{"provider", self->state.provider}});
  done(write_outcome::unavailable("the follower that forwarded this write stopped waiting for it; it was not applied"));
  return true;
}

// Upserts a declaration's items, within the provider's budget here and the catalog's at the REGISTRY.
void declare(self_ptr self, const declare_command& cmd, const write_completion& done) {
  auto& st = self->state;
  auto now = st.ctx.clock->now_ms();
  auto next = upsert(st, cmd, now);
  if (next.size() > st.ctx.limits.max_items_per_provider)
    return done(write_outcome::refused(
        refused("items", "a provider may list at most " + std::to_string(st.ctx.limits.max_items_per_provider) + " items")));
  auto accepted = cmd.items.size();
  std::vector<std::string> keys;
  keys.reserve(cmd.items.size());
  for (auto& item : cmd.items) keys.push_back(item.identity.key());
  commit(
      self, std::move(next), true,
      [=, digest = cmd.digest, keys = std::move(keys)] {
        self->state.last_digest = digest;
        self->state.last_keys = keys;
        done({write_outcome::status::ok, {}, accepted, now});
      },
      [=](const caf::error& err) {
        if (err == errc::catalog_full) done(write_outcome::refused({errc::catalog_full, "items", "the catalog is full"}));
        else done(write_outcome::unavailable("the catalog is shutting down"));
      });
}

item_map apply(const item_map& items, const counted_batch& batch, std::int64_t today, bool with_created) {
  item_map next = items;
  for (auto& [key, touched] : batch.touched)
    if (with_created || !batch.created.count(key)) next[key] = make_item(touched.record, today);
  return next;
}

// Removes the named items (or all); ok with how many.
void delist(self_ptr self, const delist_command& cmd, const write_completion& done) {
  auto& st = self->state;
  auto now = st.ctx.clock->now_ms();
  auto next = cmd.all ? item_map{} : st.items;
  std::size_t removed = cmd.all ? st.items.size() : 0;
  for (auto& key : cmd.keys) removed += next.erase(key);
  if (removed == 0) return done({write_outcome::status::ok, {}, 0, now});
  // The body that listed them is no heartbeat any more: sent again, it is declared again in
  // full (the provider still serves those routes after all).
  st.last_digest.clear();
  commit(
      self, std::move(next), false, [=] { done({write_outcome::status::ok, {}, removed, now}); },
      [=](const caf::error&) { done(write_outcome::unavailable("the catalog is shutting down")); });
}

// Counts a batch of settles: one outcome per event, in order, once the REGISTRY took the counts.
// Counts on existing items always land; new payment-only items only within the global budgets,
// and if those are full the batch is counted again without its new items.
caf::result<settle_outcomes> count_settles(self_ptr self, const settle_batch& batch) {
  auto rp = self->make_response_promise<settle_outcomes>();
  auto now = self->state.ctx.clock->now_ms();
  auto today = wire::utc_day(now);
  auto counted = std::make_shared<counted_batch>(count_batch(self->state, batch, now));
  auto deliver = [=]() mutable { rp.deliver(std::move(counted->outcomes)); };
  auto unavailable = [=, n = batch.size()](const caf::error&) mutable {
    rp.deliver(settle_outcomes(n, settle_outcome::rejected(settle_rejection::unavailable, "the catalog is unavailable")));
  };
  auto counts_only = [=]() mutable {
    for (std::size_t i = 0; i < counted->key_of.size(); ++i)
      if (counted->key_of[i] && counted->created.count(*counted->key_of[i]))
        counted->outcomes[i] = settle_outcome::rejected(settle_rejection::catalog_full, "paymentPayload.resource.url: the catalog is full");
    commit(self, apply(self->state.items, *counted, today, false), false, deliver, unavailable, counted_payments(*counted, now));
  };
  if (counted->touched.empty()) {
    deliver();
  } else if (counted->created.empty()) {
    // Every touched item exists: its record moves into its new version, which replaces the old
    // where it is.
    std::vector<std::pair<item_map::iterator, item_ptr>> versions;
    for (auto& [key, touched] : counted->touched) versions.emplace_back(touched.at, make_item(std::move(touched.record), today));
    commit_in_place(self, std::move(versions), counted_payments(*counted, now), deliver, unavailable);
  } else {
    commit(
        self, apply(self->state.items, *counted, today, true), true, deliver,
        [=](const caf::error& err) mutable {
          if (err == errc::catalog_full) counts_only();
          else unavailable(err);
        },
        counted_payments(*counted, now));
  }
  return rp;
}

// The timer of `generation` fired: expired items leave, and paidCallsToday turns with the day.
void sweep(self_ptr self, std::uint64_t generation) {
  auto& st = self->state;
  if (generation != st.timer_generation) return;
  st.armed_for = -1;
  bool changed = false;
  auto next = swept(st, st.ctx.clock->now_ms(), changed);
  if (changed)
    commit(self, std::move(next), false, [] {}, [](const caf::error&) {});
  else
    arm_timer(self);
}

}  // namespace

provider_actor::behavior_type provider(provider_actor::stateful_pointer<provider_state> self, engine_context ctx,
                                       registry_actor registry, std::string name, item_list initial) {
  auto& st = self->state;
  st.ctx = std::move(ctx);
  st.registry = std::move(registry);
  st.provider = std::move(name);
  for (auto& it : initial) st.items.emplace(it->record().identity.key(), it);
  arm_timer(self);
  return {
      [=](atom::declare, const declare_command& cmd, const write_completion& done) {
        if (refused_as_late(self, cmd.deadline_ms, done)) return;
        if (!heartbeat(self, cmd.digest, done)) declare(self, cmd, done);
      },
      [=](atom::delist, const delist_command& cmd, const write_completion& done) {
        if (!refused_as_late(self, cmd.deadline_ms, done)) delist(self, cmd, done);
      },
      [=](atom::repeat, const std::string& digest, const write_completion& done) {
        if (!heartbeat(self, digest, done)) done({write_outcome::status::not_a_repeat, {}, 0, 0});
      },
      [=](atom::settled, const settle_batch& batch) { return count_settles(self, batch); },
      [=](atom::tick, std::uint64_t generation) { sweep(self, generation); },
      [=](atom::forget) {
        commit(self, {}, false, [=] { self->quit(); }, [=](const caf::error&) { self->quit(); });
      },
  };
}

}  // namespace z402::catalog
