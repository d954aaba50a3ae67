#include "catalog/replica_actor.hpp"

#include "z402/core/crypto.hpp"

#include "catalog/cluster_link.hpp"

#include <algorithm>
#include <optional>

namespace z402::catalog {
namespace {

using self_ptr = replica_actor::stateful_pointer<replica_state>;

constexpr std::chrono::milliseconds first_backoff{100};
constexpr std::chrono::milliseconds max_backoff{5000};
constexpr std::chrono::milliseconds connect_timeout{5000};

void set_link(self_ptr self, primary_link link) {
  self->state.ctx.stats->primary.store(link, std::memory_order_relaxed);
}

// Publishes what the replica holds, under the primary's version and with its totals; the
// payments the primary counted in it are saved with it, as the primary's are.
void publish(self_ptr self, bool content_changed, std::size_t bytes, std::size_t providers,
             std::vector<payment_record> payments = {}) {
  auto& st = self->state;
  if (content_changed || !st.indexes) st.indexes = content_indexes::after(st.store->load());
  auto now = st.ctx.clock->now_ms();
  auto counted = payments.empty() ? nullptr : std::make_shared<const std::vector<payment_record>>(std::move(payments));
  auto snap = make_snapshot(st.epoch, st.version, st.items, bytes, providers, now, st.indexes, std::move(counted));
  st.store->publish(snap);
  if (st.persistence) self->send(st.persistence, atom::persist::value, snap);
  st.ctx.stats->primary_contact_ms.store(now, std::memory_order_relaxed);
}

// Tells the FEED a change or copy was applied: its credit to send more (feed_actor.hpp).
void applied(self_ptr self) {
  if (self->state.feed) self->send(self->state.feed, atom::applied::value, self->state.version);
}

// Applies changes that continue from the version held; whether any touched content, or nothing
// when a recounted item is not held (then only a copy can make this catalog the primary's).
std::optional<bool> apply(replica_state& st, const catalog_delta& d) {
  bool content = !d.removed.empty();
  for (auto seq : d.removed)
    if (auto pos = position_of(st.items, seq); holds(st.items, pos, seq)) st.items.erase(pos);
  for (auto& it : d.upserts) {
    auto pos = position_of(st.items, it->record().seq);
    if (holds(st.items, pos, it->record().seq)) {
      // Contents arrive as new objects: compared as served text.
      content |= (*pos)->record().content->json != it->record().content->json;
      st.items.set(pos, it);
    } else {
      st.items.insert(pos, it);
      content = true;
    }
  }
  for (auto& c : d.recounted) {
    auto pos = position_of(st.items, c.seq);
    if (!holds(st.items, pos, c.seq)) return std::nullopt;
    auto record = (*pos)->record();  // shares the content it holds
    record.declared = c.declared;
    record.last_seen_ms = c.last_seen_ms;
    record.last_updated_ms = c.last_updated_ms;
    record.usage = c.usage;
    st.items.set(pos, make_item(std::move(record), c.rendered_day));
  }
  st.version = d.version;
  return content;
}

// Asks the middleman for the FEED, at most `connect_timeout` (a primary that accepts the
// connection and never answers is unreachable too); a failure comes back as `connect` after the
// next backoff. Each reason is logged once until the link is made, not per attempt: a refused
// certificate or a primary that is down is said once, and /health says the link's state since.
// Not only when the reason changes: one refusal's reason can differ from one attempt to the next,
// and a change was logged each time (a refused handshake logged twice within a second on a fresh
// machine, tests/e2e/cluster.test.mjs).
void reach(self_ptr self) {
  auto& st = self->state;
  st.backoff = st.backoff.count() == 0 ? first_backoff : std::min(st.backoff * 2, max_backoff);
  reach_feed(self, st.primary, connect_timeout, [=](expected<feed_remote_actor> feed) {
    auto& st = self->state;
    if (feed) return self->send(self, atom::connected::value, std::move(*feed));
    auto& reason = feed.error().reason;
    auto news = st.failures_said.heard(reason);
    if (news == unreachable_reasons::news::first || news == unreachable_reasons::news::one_more)
      st.ctx.log.warning(news == unreachable_reasons::news::first
                             ? "cannot reach the primary's feed; trying again with backoff"
                             : "cannot reach the primary's feed for yet another reason; trying again with backoff, and no "
                               "further reason is logged until it is reached",
                         {{"primary", config::to_string(st.primary)}, {"reason", reason}});
    self->delayed_send(self, st.backoff, atom::connect::value);
  });
}

void refuse_all(settle_answers& answers, const error& why) {
  for (auto& a : answers) a(settle_outcome::rejected(settle_rejection::unavailable, why.reason));
}

error unavailable(std::string why) { return {errc::unavailable, "", std::move(why)}; }

// Sends a forwarded write to the primary. `answer` gets the primary's reply; `refuse` any
// failure (unavailable). A settle or a heartbeat (`deadline` null: landing late changes nothing,
// since a payment counts once and a heartbeat repeats) is refused at once when the link goes down
// (the answer or the timeout that may follow does nothing, since a completion answers once). A
// declaration or a delisting gets its deadline written into `*deadline`, in the command among
// `xs`, and is refused only at its timeout: until then the primary may still apply it, and a 503
// given earlier would let the client's next write land before it. (A request already sent ends
// with its reply or at its timeout: a link that goes down drops the reply, not the timeout.)
template <class Reply, class Answer, class Refuse, class... Ts>
void forward(self_ptr self, std::int64_t* deadline, Answer answer, Refuse refuse, Ts&&... xs) {
  auto& st = self->state;
  if (!st.feed) return refuse(unavailable("the primary is unreachable; try again shortly"));
  if (st.checks_differ) return refuse(*st.checks_differ);
  auto ticket = st.next_ticket++;
  if (deadline) {
    auto last = st.primary_time.deadline(steady_ms(self->clock()), forward_timeout);
    if (!last) return refuse(unavailable("the primary has sent nothing on its new link yet; try again shortly"));
    *deadline = *last;
  } else {
    st.in_flight.emplace(ticket, refuse);
  }
  self->request(st.feed, forward_timeout, std::forward<Ts>(xs)...)
      .then(
          [=](Reply& reply) mutable {
            self->state.in_flight.erase(ticket);
            answer(reply);
          },
          [=](caf::error&) mutable {
            self->state.in_flight.erase(ticket);
            refuse(unavailable("the primary did not answer; try again shortly"));
          });
}

// How a forwarded write is refused when the primary does not answer it: unavailable, and why.
auto refusing(write_completion done) {
  return [done](const error& why) { done({write_outcome::status::unavailable, why, 0, 0}); };
}

void forward_delisting(self_ptr self, std::string provider, delist_command cmd, write_completion done) {
  auto* deadline = &cmd.deadline_ms;
  forward<write_outcome>(
      self, deadline, [done](write_outcome& o) { done(std::move(o)); }, refusing(done), atom::delist::value, std::move(provider),
      std::move(cmd));
}

// A declaration for the primary. A heartbeat crosses the link as its digest alone (32 bytes
// rather than up to 128 items' content): when the digest is the last one the primary took for
// the provider, the primary is asked whether it repeats; only when it answers not_a_repeat (an
// item left since, or another node declared) does the declaration itself follow.
void forward_declaration(self_ptr self, std::string provider, declare_command cmd, write_completion done) {
  auto& digests = self->state.declared_digests;
  auto whole = [=](declare_command& cmd) mutable {
    auto digest = cmd.digest;
    auto* deadline = &cmd.deadline_ms;
    forward<write_outcome>(
        self, deadline,
        [=](write_outcome& o) mutable {
          if (o.state == write_outcome::status::ok && !digest.empty()) self->state.declared_digests[provider] = digest;
          done(std::move(o));
        },
        refusing(done), atom::declare::value, provider,
        std::move(cmd));
  };
  auto known = digests.find(provider);
  if (cmd.digest.empty() || known == digests.end() || known->second != cmd.digest) return whole(cmd);
  auto digest = cmd.digest;
  forward<write_outcome>(
      self, nullptr,
      [=, cmd = std::make_shared<declare_command>(std::move(cmd))](write_outcome& o) mutable {
        if (o.state == write_outcome::status::not_a_repeat) return whole(*cmd);
        done(std::move(o));
      },
      refusing(done), atom::repeat::value, provider,
      std::move(digest));
}

// The FEED is reached: watch it and subscribe from what this node holds.
void follow(self_ptr self, feed_remote_actor feed) {
  auto& st = self->state;
  st.feed = std::move(feed);
  st.primary_time.forget();
  self->monitor(st.feed);
  st.backoff = std::chrono::milliseconds{0};
  st.failures_said.linked();
  set_link(self, primary_link::connected);
  st.ctx.stats->links_made.fetch_add(1, std::memory_order_relaxed);
  st.ctx.log.info("following the primary", {{"primary", config::to_string(st.primary)}, {"version", st.version}});
  self->send(st.feed, atom::subscribe::value, st.epoch, st.version, caf::actor_cast<replica_feed_actor>(self));
}

// The FEED went down: settles and heartbeats on their way get their answer now, not at their
// timeout (the client tries again); declarations and delistings at theirs (forward). The primary
// is reached again with backoff.
void lost_primary(self_ptr self) {
  auto& st = self->state;
  st.feed = nullptr;
  for (auto& [ticket, refuse] : std::exchange(st.in_flight, {}))
    refuse(unavailable("the primary was lost before it answered; try again shortly"));
  set_link(self, primary_link::unreachable);
  st.ctx.log.warning("primary unreachable; serving the last catalog it sent and reaching it again",
                     {{"primary", config::to_string(st.primary)}, {"version", st.version}});
  st.backoff = std::chrono::milliseconds{0};
  reach(self);
}

// Asks the FEED for what follows the version held (a copy when it has nothing to continue from).
void resubscribe(self_ptr self) {
  auto& st = self->state;
  if (st.feed) self->send(st.feed, atom::subscribe::value, st.epoch, st.version, caf::actor_cast<replica_feed_actor>(self));
}

void take_copy(self_ptr self, catalog_copy& c) {
  auto& st = self->state;
  st.primary_time.heard(c.sent_ms, steady_ms(self->clock()));
  st.epoch = c.epoch;
  st.version = c.version;
  st.items = listing_items{c.items};
  st.ctx.stats->copies_taken.fetch_add(1, std::memory_order_relaxed);
  publish(self, true, c.bytes, c.providers);
  st.ctx.log.info("took a copy of the primary's catalog", {{"version", st.version}, {"items", st.items.size()}});
  applied(self);
}

void take_delta(self_ptr self, catalog_delta& d) {
  auto& st = self->state;
  st.primary_time.heard(d.sent_ms, steady_ms(self->clock()));
  // Not a continuation of what it holds: ask again from there (a copy if need be).
  if (d.epoch != st.epoch || d.from != st.version) return resubscribe(self);
  if (d.version == st.version && d.upserts.empty() && d.recounted.empty() && d.removed.empty() && d.payments.empty()) {
    st.ctx.stats->primary_contact_ms.store(st.ctx.clock->now_ms(), std::memory_order_relaxed);
    return applied(self);
  }
  auto content = apply(st, d);
  if (!content) {
    st.ctx.log.warning("a change named an item this follower does not hold; taking a copy", {{"version", d.version}});
    st.version = 0;  // no version the feed holds: it sends a copy
    return resubscribe(self);
  }
  publish(self, *content, d.bytes, d.providers, std::move(d.payments));
  applied(self);
}

// The primary's checks (checks_of) beside this node's: writes are forwarded only while they agree.
void compare_checks(self_ptr self, const std::string& primary) {
  auto& st = self->state;
  auto own = checks_of(st.ctx);
  if (own == primary) return st.checks_differ.reset();
  st.checks_differ = unavailable(
      "this follower checks declarations against other terms or limits than its primary's; "
      "give it the primary's terms, allowHttpResources and limits.maxItemsPerProvider");
  st.ctx.log.error("this follower's checks differ from its primary's: it forwards no writes until they agree",
                   {{"primary", primary}, {"follower", own}});
}

void forward_settles(self_ptr self, settle_batch events, settle_answers answers) {
  forward<settle_outcomes>(
      self, nullptr,
      [answers](settle_outcomes& outcomes) mutable {
        if (outcomes.size() != answers.size()) return refuse_all(answers, unavailable("the primary's answer did not match the batch"));
        for (std::size_t i = 0; i < answers.size(); ++i) answers[i](std::move(outcomes[i]));
      },
      [answers](const error& why) mutable { refuse_all(answers, why); }, atom::settle::value, std::move(events));
}

}  // namespace

unreachable_reasons::news unreachable_reasons::heard(const std::string& reason) {
  if (std::find(said_.begin(), said_.end(), reason) != said_.end()) return news::repeated;
  if (said_.size() < max_kept) {
    said_.push_back(reason);
    return news::first;
  }
  if (past_bound_) return news::unsaid;
  past_bound_ = true;
  return news::one_more;
}

void unreachable_reasons::linked() {
  said_.clear();
  past_bound_ = false;
}

replica_actor::behavior_type replica(replica_actor::stateful_pointer<replica_state> self, engine_context ctx,
                                     std::shared_ptr<snapshot_store> store, persistence_actor persistence, config::listen_address primary,
                                     std::function<void(const std::string&)> on_keyring, std::shared_ptr<signed_store> signed_catalog) {
  auto& st = self->state;
  st.ctx = std::move(ctx);
  st.ctx.log = st.ctx.log.with_component("cluster.replica");
  st.store = std::move(store);
  st.persistence = std::move(persistence);
  st.primary = std::move(primary);
  st.on_keyring = std::move(on_keyring);
  st.signed_catalog = std::move(signed_catalog);
  // Until the primary answers, the node serves the catalog it loaded from its own file; when that
  // is a state of the primary's (the file said which), it subscribes from there.
  auto loaded = st.store->load();
  st.items = loaded->items;
  if (loaded->epoch != st.ctx.epoch) {
    st.epoch = loaded->epoch;
    st.version = loaded->version;
  }
  set_link(self, primary_link::reaching);
  self->set_down_handler([=](const caf::down_msg& down) {
    if (down.source == self->state.feed.address()) lost_primary(self);
  });
  self->send(self, atom::connect::value);
  return {
      [=](atom::connect) {
        if (!self->state.feed) reach(self);
      },
      [=](atom::connected, feed_remote_actor& feed) { follow(self, std::move(feed)); },
      [=](atom::copy, catalog_copy& c) { take_copy(self, c); },
      [=](atom::delta, catalog_delta& d) { take_delta(self, d); },
      [=](atom::keyring, std::string& text) {
        if (self->state.on_keyring) self->state.on_keyring(text);
      },
      [=](atom::signed_catalog, std::uint64_t sequence, std::int64_t expires_ms, std::string& note, std::string& keys_note,
          std::string& bytes) {
        // Served as they came: the agents check them; the name is the bytes' own digest.
        auto& out = *self->state.signed_catalog;
        auto sha256 = crypto::sha256_bytes(bytes);  // before `bytes` is moved into the publication
        out.publish(make_publication(sequence, expires_ms, std::move(sha256),
                                     std::move(note), std::move(keys_note), std::make_shared<const std::string>(std::move(bytes)),
                                     out.load()));
      },
      [=](atom::checks, std::string& primary) { compare_checks(self, primary); },
      [=](atom::declare, std::string& provider, declare_command& cmd, write_completion& done) {
        forward_declaration(self, std::move(provider), std::move(cmd), std::move(done));
      },
      [=](atom::delist, std::string& provider, delist_command& cmd, write_completion& done) {
        forward_delisting(self, std::move(provider), std::move(cmd), std::move(done));
      },
      [=](atom::settle, settle_batch& events, settle_answers& answers) { forward_settles(self, std::move(events), std::move(answers)); },
  };
}

}  // namespace z402::catalog
