#include "z402/catalog/engine.hpp"

#include "catalog/feed_actor.hpp"
#include "catalog/forwarded_writes_actor.hpp"
#include "catalog/payment_file.hpp"
#include "catalog/persistence_actor.hpp"
#include "catalog/signer_actor.hpp"
#include "catalog/registry_actor.hpp"
#include "catalog/replica_actor.hpp"
#include "catalog/settle_actor.hpp"
#include "core/detached.hpp"
#include "z402/catalog/serialization.hpp"
#include "z402/wire/iso_time.hpp"

#include <boost/json/serialize.hpp>

#include <random>

namespace z402::catalog {

std::string checks_of(const engine_context& ctx) {
  return "terms " + boost::json::serialize(config::to_json(ctx.terms)) + ", allowHttpResources " +
         (ctx.allow_http_resources ? "true" : "false") + ", maxItemsPerProvider " + std::to_string(ctx.limits.max_items_per_provider);
}

engine::engine(caf::actor_system& sys, engine_options options) : sys_(sys) {
  ctx_.limits = options.limits;
  ctx_.terms = std::move(options.terms);
  ctx_.allow_http_resources = options.allow_http_resources;
  ctx_.clock = options.clock;
  ctx_.log = options.log;
  std::random_device random;
  ctx_.epoch = (std::uint64_t{random()} << 32 | random()) | 1;  // never 0: a follower's "nothing yet"
  bool resumes = options.follow && options.initial_epoch != 0;
  auto today = resumes ? options.initial_day : wire::utc_day(ctx_.clock->now_ms());
  item_list initial;
  std::unordered_map<std::string, item_list> initial_of;
  std::uint64_t max_seq = 0;
  for (auto& r : options.initial) {
    max_seq = std::max(max_seq, r.seq);
    auto provider = r.provider;
    auto it = make_item(std::move(r), today);
    initial.push_back(it);
    initial_of[provider].push_back(it);
  }
  ctx_.next_seq->store(max_seq + 1);
  payments_load payments;
  if (!options.payments_file.empty()) {
    payments = load_payments(options.payments_file, ctx_.clock->now_ms(), ctx_.limits.payment_memory.count(),
                             ctx_.limits.max_remembered_payments);
    if (payments.state == payments_load::status::corrupt)
      ctx_.log.with_component("catalog").error("payments file unreadable; starting with no remembered payments",
                                                {{"file", options.payments_file.string()}, {"reason", payments.problem}});
  }
  payments_file_end end{options.payments_file, payments.good_bytes, payments.records_in_file};
  if (!options.catalog_file.empty())
    persistence_ = options.persistence_thread
                       ? spawn_detached(sys, catalog::persistence, options.catalog_file, options.persist_interval, ctx_, end)
                       : sys.spawn(catalog::persistence, options.catalog_file, options.persist_interval, ctx_, end);
  store_->publish(resumes ? first_snapshot(initial, options.initial_epoch, ctx_.clock->now_ms(), options.initial_version)
                         : first_snapshot(initial, ctx_.epoch, ctx_.clock->now_ms()));
  registry_ = sys.spawn(catalog::registry, ctx_, store_, persistence_, options.publish_interval,
                        options.counts_interval);
  feed_window_ = options.feed_window;
  settle_window_ = std::make_shared<settle_window>(std::max<std::size_t>(1, options.max_settles_in_flight));
  if (options.follow) {
    // A follower's items are the primary's: no PROVIDER owns them here (their timers run on the
    // primary, whose changes arrive), and the REPLICA publishes them.
    directory_ = std::make_shared<provider_directory>(sys, ctx_, registry_, std::unordered_map<std::string, item_list>{});
    replica_ = sys.spawn(catalog::replica, ctx_, store_, persistence_, *options.follow, std::move(options.on_keyring), signed_);
  } else {
    std::vector<std::string> loaded;
    for (auto& [name, items] : initial_of) loaded.push_back(name);
    directory_ = std::make_shared<provider_directory>(sys, ctx_, registry_, std::move(initial_of));
    // Providers with items on disk own their timers from the start, not from their next message.
    for (auto& name : loaded) directory_->get(name);
  }
  settle_ = sys.spawn(catalog::settle, ctx_, directory_, std::move(payments.records));
  if (options.signing && !options.follow) {
    signing_rhythm rhythm;
    rhythm.interval = options.signing->interval;
    auto keys = std::make_shared<config::signing_keys>(std::move(options.signing->keys));
    std::shared_ptr<const snapshot_store> snapshots{store_};
    // Detached with PERSISTENCE: deterministic tests drive both on the test coordinator.
    signer_ = options.persistence_thread
                  ? spawn_detached(sys, catalog::signer, options.signing->files, keys, options.signing->sequence, rhythm, snapshots, signed_, ctx_)
                  : sys.spawn(catalog::signer, options.signing->files, keys, options.signing->sequence, rhythm, snapshots, signed_, ctx_);
  }
}

engine::~engine() { stop(); }

expected<std::uint64_t> engine::flush() {
  expected<std::uint64_t> flushed = error{errc::unavailable, "", "the catalog did not answer"};
  caf::scoped_actor self{registry_->home_system()};
  self->request(registry_, std::chrono::seconds{10}, atom::flush::value)
      .receive([&](std::uint64_t on_disk) { flushed = on_disk; }, [&](caf::error& err) { flushed = error_of(err); });
  return flushed;
}

void engine::set_payees(payee_map payees) { caf::anon_send(settle_, atom::providers::value, std::move(payees)); }

declare_command make_declare_command(std::vector<rules::declared_item> items, std::string digest) {
  declare_command cmd;
  cmd.digest = std::move(digest);
  cmd.items.reserve(items.size());
  for (auto& item : items) {
    cmd.items.push_back({item.identity, make_content(item.fields, item.identity.selector)});
    item.fields = {};  // free each tree as soon as its content exists
  }
  return cmd;
}

// A follower's writes go to the primary through its REPLICA; a primary's to the PROVIDER.
void engine::declare(const std::string& name, declare_command cmd, write_completion done) {
  if (replica_) return caf::anon_send(replica_, atom::declare::value, name, std::move(cmd), std::move(done));
  caf::anon_send(directory_->get(name), atom::declare::value, std::move(cmd), std::move(done));
}

void engine::delist(const std::string& name, delist_command cmd, write_completion done) {
  if (replica_) return caf::anon_send(replica_, atom::delist::value, name, std::move(cmd), std::move(done));
  caf::anon_send(directory_->get(name), atom::delist::value, std::move(cmd), std::move(done));
}

void engine::settle(const boost::json::value& body, settle_completion done) {
  settle(rules::derive_settlement(body), std::move(done));
}

void engine::settle(std::string_view body_json, settle_completion done) {
  settle(rules::parse_settlement(body_json), std::move(done));
}

void engine::settle(expected<rules::settlement> event, settle_completion done) {
  if (!event) {
    ctx_.stats->count_rejection(settle_rejection::invalid_body);
    return done(settle_outcome::rejected(settle_rejection::invalid_body, event.error().message()));
  }
  settle(std::move(*event), std::move(done));
}

void engine::settle(rules::settlement event, settle_completion done) {
  // The place is given back when the settle is answered, or when its answer is dropped with
  // the actors (the completion's fallback): each way the handler runs once, and frees the place
  // before the caller's own handler runs, so a handler that settles again cannot wait for
  // itself. The fallback's reason fits a string's inline buffer: no text allocated per settle.
  settle_window_->enter();
  done = settle_completion{[window = settle_window_, done = std::move(done)](settle_outcome outcome) {
                             window->leave();
                             done(std::move(outcome));
                           },
                           settle_outcome::rejected(settle_rejection::unavailable, "catalog stopped")};
  if (replica_) return settle(settle_batch{std::move(event)}, settle_answers{std::move(done)});
  caf::anon_send(settle_, atom::settle::value, std::move(event), std::move(done));
}

void engine::settle(settle_batch events, settle_answers answers) {
  if (replica_) return caf::anon_send(replica_, atom::settle::value, std::move(events), std::move(answers));
  caf::anon_send(settle_, atom::settle::value, std::move(events), std::move(answers));
}

feed_remote_actor engine::feed() {
  if (!feed_) {
    // Made from the snapshot readers see now; the REGISTRY sends every later one.
    auto& sys = registry_->home_system();
    writes_ = sys.spawn(catalog::forwarded_writes_handler, directory_, settle_);
    feed_ = sys.spawn(catalog::feed, ctx_, store_->load(), ctx_.epoch, feed_window_, writes_,
                      std::shared_ptr<const signed_store>{signed_});
    caf::anon_send(registry_, atom::watch::value, publication_watcher{feed_});
  }
  return feed_;
}

void engine::set_keyring(std::string text) {
  if (feed_) caf::anon_send(feed_, atom::keyring::value, std::move(text));
}

void engine::forget_provider(const std::string& name) {
  if (auto hdl = directory_->remove(name)) caf::anon_send(hdl, atom::forget::value);
}

void engine::stop() {
  if (directory_)
    for (auto& hdl : directory_->stop_all()) stopping_.push_back(caf::actor_cast<caf::actor>(hdl));
  auto stop = [this](auto& hdl) {
    if (hdl) {
      stopping_.push_back(caf::actor_cast<caf::actor>(hdl));
      caf::anon_send_exit(hdl, caf::exit_reason::user_shutdown);
    }
    hdl = nullptr;
  };
  stop(settle_);
  stop(replica_);
  stop(feed_);
  stop(writes_);
  stop(registry_);
  stop(signer_);
  stop(persistence_);
}

void engine::await_stopped() {
  caf::scoped_actor self{sys_};
  for (auto& hdl : stopping_) self->wait_for(hdl);
  stopping_.clear();
}

}  // namespace z402::catalog
