#include "catalog/feed_actor.hpp"

#include "catalog/forward_deadline.hpp"

#include <algorithm>

namespace z402::catalog {

catalog_delta delta_between(const snapshot& from, const snapshot& to, std::uint64_t epoch) {
  catalog_delta d{epoch, from.version, to.version, {}, {}, {}, to.bytes, to.providers, {}};
  // Both lists are in listing order, which is seq order: one walk over both.
  auto a = from.items.begin(), b = to.items.begin();
  while (a != from.items.end() || b != to.items.end()) {
    if (b == to.items.end() || (a != from.items.end() && (*a)->record().seq < (*b)->record().seq)) {
      d.removed.push_back((*a++)->record().seq);
    } else if (a == from.items.end() || (*b)->record().seq < (*a)->record().seq) {
      d.upserts.push_back(*b++);
    } else {
      if (*a != *b) {
        auto& r = (*b)->record();
        // The same content object: only counts or times moved (item.hpp: versions share it).
        if ((*a)->record().content == r.content)
          d.recounted.push_back({r.seq, r.declared, r.last_seen_ms, r.last_updated_ms, r.usage, (*b)->rendered_day()});
        else
          d.upserts.push_back(*b);
      }
      ++a;
      ++b;
    }
  }
  return d;
}

std::vector<payment_record> payments_between(const std::deque<snapshot_ptr>& recent, std::uint64_t from, std::uint64_t to) {
  std::vector<payment_record> out;
  for (auto& s : recent)
    if (s->version > from && s->version <= to && s->payments) out.insert(out.end(), s->payments->begin(), s->payments->end());
  return out;
}

namespace {

// Sends `f` the changes up to `to`, with the payments it is owed; one more in flight.
void send_changes(feed_actor::stateful_pointer<feed_state> self, feed_state::follower& f, catalog_delta changes,
                  const snapshot_ptr& to) {
  changes.payments = std::exchange(f.owed, {});
  changes.sent_ms = steady_ms(self->clock());
  self->send(f.replica, atom::delta::value, std::move(changes));
  f.sent = to;
  ++f.unacknowledged;
  f.sent_this_second = true;
}

template <class Handle>
void send_signed(feed_actor::stateful_pointer<feed_state> self, const Handle& replica, const signed_publication& pub) {
  self->send(replica, atom::signed_catalog::value, pub.sequence, pub.expires_ms, pub.note, pub.keys_note, *pub.bytes);
}

/// A publication the followers have not been sent yet goes to each of them.
void share_signed(feed_actor::stateful_pointer<feed_state> self) {
  auto& st = self->state;
  auto pub = st.signed_catalog ? st.signed_catalog->load() : nullptr;
  if (!pub || pub == st.signed_sent) return;
  st.signed_sent = pub;
  for (auto& f : st.followers) send_signed(self, f.replica, *pub);
}

}  // namespace

feed_actor::behavior_type feed(feed_actor::stateful_pointer<feed_state> self, engine_context ctx, snapshot_ptr current,
                               std::uint64_t epoch, std::size_t window, writes_actor writes,
                               std::shared_ptr<const signed_store> signed_catalog) {
  auto& st = self->state;
  st.signed_catalog = std::move(signed_catalog);
  st.ctx = std::move(ctx);
  st.ctx.log = st.ctx.log.with_component("cluster.feed");
  st.epoch = epoch;
  st.window = std::max<std::size_t>(1, window);
  st.recent.push_back(std::move(current));
  st.writes = std::move(writes);
  self->delayed_send(self, feed_heartbeat, atom::tick::value);
  self->set_down_handler([=](const caf::down_msg& down) {
    auto& followers = self->state.followers;
    std::erase_if(followers, [&](auto& f) { return f.replica.address() == down.source; });
    self->state.ctx.stats->followers.store(followers.size(), std::memory_order_relaxed);
    self->state.ctx.log.info("a follower left", {{"followers", followers.size()}});
  });
  return {
      [=](atom::subscribe, std::uint64_t epoch, std::uint64_t version, replica_feed_actor& replica) {
        auto& st = self->state;
        auto& latest = st.recent.back();
        auto held = std::find_if(st.recent.begin(), st.recent.end(), [&](auto& s) { return s->version == version; });
        // The keys first: by the time the follower serves this catalog it can take writes for it.
        if (!st.keyring.empty()) self->send(replica, atom::keyring::value, st.keyring);
        self->send(replica, atom::checks::value, checks_of(st.ctx));
        if (auto pub = st.signed_catalog ? st.signed_catalog->load() : nullptr) send_signed(self, replica, *pub);
        if (epoch == st.epoch && held != st.recent.end()) {
          auto d = delta_between(**held, *latest, st.epoch);
          d.payments = payments_between(st.recent, version, latest->version);
          d.sent_ms = steady_ms(self->clock());
          self->send(replica, atom::delta::value, std::move(d));
        } else {
          self->send(replica, atom::copy::value, catalog_copy{st.epoch, latest->version, item_list(latest->items.begin(), latest->items.end()),
                                                              latest->bytes, latest->providers, steady_ms(self->clock())});
        }
        // A reconnecting follower replaces its earlier subscription.
        std::erase_if(st.followers, [&](auto& f) { return f.replica == replica; });
        self->monitor(replica);
        st.followers.push_back({replica, latest, 1, {}, false});
        st.ctx.stats->followers.store(st.followers.size(), std::memory_order_relaxed);
        st.ctx.log.info("a follower subscribed", {{"followers", st.followers.size()},
                                                  {"from", held != st.recent.end() && epoch == st.epoch ? "its version" : "a copy"}});
      },
      [=](atom::published, snapshot_ptr& snap) {
        auto& st = self->state;
        st.recent.push_back(snap);
        while (st.recent.size() > st.window) st.recent.pop_front();
        // Followers that were sent the same version get the same changes, computed once; one
        // without credit is held back and later sent everything since, as one change.
        snapshot_ptr from;
        catalog_delta changes;
        for (auto& f : st.followers) {
          if (snap->payments) f.owed.insert(f.owed.end(), snap->payments->begin(), snap->payments->end());
          if (f.unacknowledged >= feed_credit) continue;
          if (f.sent != from) {
            from = f.sent;
            changes = delta_between(*from, *snap, st.epoch);
          }
          send_changes(self, f, changes, snap);
        }
      },
      [=](atom::tick) {
        for (auto& f : self->state.followers) {
          if (!f.sent_this_second && f.unacknowledged < feed_credit)
            send_changes(self, f, catalog_delta{self->state.epoch, f.sent->version, f.sent->version, {}, {}, {}, f.sent->bytes, f.sent->providers, {}},
                         f.sent);
          f.sent_this_second = false;
        }
        share_signed(self);
        self->delayed_send(self, feed_heartbeat, atom::tick::value);
      },
      [=](atom::applied, std::uint64_t) {
        auto& st = self->state;
        // Only a subscribed follower's word counts: an anonymous one names nobody.
        auto sender = self->current_sender();
        if (!sender) return;
        auto f = std::find_if(st.followers.begin(), st.followers.end(), [&](auto& f) { return f.replica.address() == sender->address(); });
        if (f == st.followers.end()) return;
        if (f->unacknowledged > 0) --f->unacknowledged;
        // A follower that was held back catches up in one change.
        auto& latest = st.recent.back();
        if (f->sent != latest && f->unacknowledged < feed_credit)
          send_changes(self, *f, delta_between(*f->sent, *latest, st.epoch), latest);
      },
      [=](atom::keyring, std::string& text) {
        auto& st = self->state;
        if (text == st.keyring) return;
        st.keyring = std::move(text);
        for (auto& f : st.followers) self->send(f.replica, atom::keyring::value, st.keyring);
      },
      // Writes a follower forwards: WRITES answers the follower directly.
      [=](atom::declare a, std::string& provider, declare_command& cmd) {
        return self->delegate(self->state.writes, a, std::move(provider), std::move(cmd));
      },
      [=](atom::repeat a, std::string& provider, std::string& digest) {
        return self->delegate(self->state.writes, a, std::move(provider), std::move(digest));
      },
      [=](atom::delist a, std::string& provider, delist_command& cmd) {
        return self->delegate(self->state.writes, a, std::move(provider), std::move(cmd));
      },
      [=](atom::settle a, settle_batch& events) { return self->delegate(self->state.writes, a, std::move(events)); },
  };
}

}  // namespace z402::catalog
