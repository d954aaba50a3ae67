#define CAF_SUITE actors
// Each actor answers what its typed interface (catalog/actors.hpp) says it answers, asked
// directly through that interface: REGISTRY a commit and a flush, PERSISTENCE a flush, PROVIDER
// a batch of settles, FEED a follower's subscription. (SETTLE only reacts: its answers go through
// completions, settle suite.)
#include "engine_fixture.hpp"

#include "catalog/feed_actor.hpp"
#include "catalog/forward_deadline.hpp"
#include "catalog/persistence_actor.hpp"
#include "z402/config/atomic_file.hpp"
#include "catalog/provider_actor.hpp"
#include "catalog/registry_actor.hpp"
#include "catalog/replica_actor.hpp"
#include "z402/wire/iso_time.hpp"

#include <algorithm>
#include <filesystem>

using namespace z402;
using namespace std::chrono_literals;

namespace {

struct fixture : test::engine_fixture {
  catalog::engine_context ctx;
  std::shared_ptr<catalog::snapshot_store> store = std::make_shared<catalog::snapshot_store>();
  test::temp_dir dir{"z402-actors"};

  fixture() {
    ctx.clock = wall;
    store->publish(catalog::first_snapshot({}, 1, test::start_ms));
  }

  catalog::item_ptr item(std::uint64_t seq, const std::string& resource) {
    catalog::item_record r;
    r.provider = "p1";
    r.identity = {"http", resource, "GET"};
    r.content = catalog::make_content(test::valid_item(terms, resource), "GET");
    r.seq = seq;
    r.last_seen_ms = r.last_updated_ms = test::start_ms;
    return catalog::make_item(std::move(r), wire::utc_day(test::start_ms));
  }

  /// Runs the actors (the publication interval included) and returns the answer to `handle`.
  template <class T, class Handle>
  caf::expected<T> answer(Handle& handle) {
    advance(10ms);
    caf::expected<T> got = caf::make_error(caf::sec::request_timeout);
    handle.receive([&](T value) { got = std::move(value); }, [&](caf::error& err) { got = std::move(err); });
    return got;
  }

  /// The error a request without a value (a commit) was answered with; none once acknowledged.
  template <class Handle>
  caf::error refusal(Handle& handle) {
    advance(10ms);
    caf::error got = caf::make_error(caf::sec::request_timeout);
    handle.receive([&]() { got = caf::error{}; }, [&](caf::error& err) { got = std::move(err); });
    return got;
  }

  template <class Handle>
  bool acknowledged(Handle& handle) {
    return !refusal(handle);
  }
};

}  // namespace

CAF_TEST_FIXTURE_SCOPE(actor_tests, fixture)

CAF_TEST(the registry acknowledges a commit once readers see it and refuses past a budget by code) {
  ctx.limits.max_items = 1;
  auto registry = sys.spawn(catalog::registry, ctx, store, catalog::persistence_actor{}, 1ms, 250ms);
  sched.run();
  auto first = self->request(registry, caf::infinite, catalog::atom::commit::value, std::string{"p1"},
                             catalog::item_change{{item(1, "https://a.example.com/x")}, {}, {}}, true);
  CAF_REQUIRE(acknowledged(first));
  CAF_CHECK_EQUAL(store->load()->items.size(), 1u);
  auto second = self->request(registry, caf::infinite, catalog::atom::commit::value, std::string{"p1"},
                              catalog::item_change{{item(2, "https://a.example.com/y")}, {}, {}}, true);
  auto refused = refusal(second);
  CAF_CHECK(refused == errc::catalog_full);
  CAF_CHECK_EQUAL(store->load()->items.size(), 1u);
  // Without may_refuse (counts, heartbeats, evictions) a change always lands.
  auto counted = self->request(registry, caf::infinite, catalog::atom::commit::value, std::string{"p1"},
                               catalog::item_change{{item(2, "https://a.example.com/y")}, {}, {}}, false);
  CAF_CHECK(acknowledged(counted));
  CAF_CHECK_EQUAL(store->load()->items.size(), 2u);
  auto flushed = self->request(registry, caf::infinite, catalog::atom::flush::value);
  auto published = answer<std::uint64_t>(flushed);  // no PERSISTENCE: nothing to write
  CAF_REQUIRE(published);
  CAF_CHECK_EQUAL(*published, store->load()->version);
  self->send_exit(registry, caf::exit_reason::user_shutdown);
}

CAF_TEST(the registry answers a count at once and publishes counts at most once per counts interval) {
  auto registry = sys.spawn(catalog::registry, ctx, store, catalog::persistence_actor{}, 1ms, 250ms);
  sched.run();
  auto declared = self->request(registry, caf::infinite, catalog::atom::commit::value, std::string{"p1"},
                                catalog::item_change{{item(1, "https://a.example.com/x")}, {}, {}}, true);
  CAF_REQUIRE(acknowledged(declared));
  advance(300ms);  // a quiet spell
  // One more paid call on the listed item: the same content, a new count.
  auto today = wire::utc_day(wall->now_ms());
  auto paid = [&](std::uint64_t calls) {
    auto r = store->load()->items.at(0)->record();
    r.usage = test::calls_on(today, static_cast<std::uint32_t>(calls));
    return catalog::item_change{{catalog::make_item(std::move(r), today)}, {}, {}};
  };
  auto calls = [&] { return store->load()->items.at(0)->record().usage.on(today); };
  auto version = store->load()->version;
  // The first count after a quiet spell is published at once.
  auto first = self->request(registry, caf::infinite, catalog::atom::commit::value, std::string{"p1"}, paid(1), false);
  CAF_CHECK(acknowledged(first));
  CAF_CHECK_EQUAL(calls(), 1u);
  CAF_CHECK_EQUAL(store->load()->version, version + 1);
  // The next one is answered within 10 ms but held for the rest of the interval.
  auto second = self->request(registry, caf::infinite, catalog::atom::commit::value, std::string{"p1"}, paid(2), false);
  CAF_CHECK(acknowledged(second));
  CAF_CHECK_EQUAL(calls(), 1u);
  CAF_CHECK_EQUAL(store->load()->version, version + 1);
  advance(200ms);  // 220 ms after the first count's publication
  CAF_CHECK_EQUAL(calls(), 1u);
  advance(50ms);  // the interval ends: one version carries what was held
  CAF_CHECK_EQUAL(calls(), 2u);
  CAF_CHECK_EQUAL(store->load()->version, version + 2);
  // A content change is not held behind counts: visible within the publication interval. It
  // does not carry the held count along, which waits for the counts interval.
  auto third = self->request(registry, caf::infinite, catalog::atom::commit::value, std::string{"p1"}, paid(3), false);
  sched.run();
  auto added = self->request(registry, caf::infinite, catalog::atom::commit::value, std::string{"p1"},
                             catalog::item_change{{item(2, "https://a.example.com/y")}, {}, {}}, true);
  CAF_CHECK(acknowledged(added));
  CAF_CHECK_EQUAL(store->load()->items.size(), 2u);
  CAF_CHECK_EQUAL(store->load()->version, version + 3);
  CAF_CHECK_EQUAL(calls(), 2u);
  CAF_CHECK(acknowledged(third));
  advance(250ms);
  CAF_CHECK_EQUAL(calls(), 3u);
  CAF_CHECK_EQUAL(store->load()->version, version + 4);
  // flush publishes what is held back.
  auto fourth = self->request(registry, caf::infinite, catalog::atom::commit::value, std::string{"p1"}, paid(4), false);
  sched.run();
  CAF_CHECK_EQUAL(calls(), 3u);
  auto flushed = self->request(registry, caf::infinite, catalog::atom::flush::value);
  sched.run();
  CAF_CHECK_EQUAL(calls(), 4u);
  CAF_CHECK(acknowledged(fourth));
  CAF_CHECK(answer<std::uint64_t>(flushed));
  self->send_exit(registry, caf::exit_reason::user_shutdown);
}

CAF_TEST(a content publication shows the counts last published and carries only their payments) {
  auto registry = sys.spawn(catalog::registry, ctx, store, catalog::persistence_actor{}, 1ms, 250ms);
  sched.run();
  auto commit = [&](catalog::item_change change, bool may_refuse) {
    return self->request(registry, caf::infinite, catalog::atom::commit::value, std::string{"p1"}, std::move(change),
                         may_refuse);
  };
  auto declared = commit({{item(1, "https://a.example.com/x"), item(2, "https://a.example.com/y")}, {}, {}}, true);
  CAF_REQUIRE(acknowledged(declared));
  advance(300ms);  // a quiet spell
  auto today = wire::utc_day(wall->now_ms());
  // What the provider holds: every count it committed, whether published or not.
  std::vector<catalog::item_ptr> held{store->load()->items.at(0), store->load()->items.at(1)};
  auto recounted = [&](std::size_t at, std::uint64_t calls) {
    auto r = held[at]->record();
    r.usage = test::calls_on(today, static_cast<std::uint32_t>(calls));
    return held[at] = catalog::make_item(std::move(r), today);
  };
  auto payment = [](std::uint64_t n) { return catalog::payment_record{{n, n}, test::start_ms}; };
  auto shown = [&](std::size_t at) { return store->load()->items.at(at)->record().usage.on(today); };
  auto payments = [&] {
    auto& p = store->load()->payments;
    return p ? *p : std::vector<catalog::payment_record>{};
  };
  using records = std::vector<catalog::payment_record>;
  // The first count after a quiet spell is published at once, with its payment.
  auto first = commit({{recounted(0, 1)}, {}, {payment(1)}}, false);
  CAF_REQUIRE(acknowledged(first));
  CAF_CHECK_EQUAL(shown(0), 1u);
  CAF_CHECK(payments() == records{payment(1)});
  auto version = store->load()->version;
  // Two more counts are held for the interval.
  auto second = commit({{recounted(0, 2), recounted(1, 1)}, {}, {payment(2), payment(3)}}, false);
  CAF_REQUIRE(acknowledged(second));
  CAF_CHECK_EQUAL(store->load()->version, version);
  // Item 1's content changes: its new version, made from what the provider holds, counts 2.
  auto r = held[0]->record();
  auto fields = test::valid_item(terms, "https://a.example.com/x");
  fields["description"] = "A new description.";
  r.content = catalog::make_content(fields, "GET");
  r.last_updated_ms = wall->now_ms();
  auto rewritten = catalog::make_item(std::move(r), today);
  CAF_REQUIRE_EQUAL(test::newest_calls(rewritten->record()), 2u);
  held[0] = rewritten;
  auto changed = commit({{rewritten}, {}, {}}, true);
  CAF_REQUIRE(acknowledged(changed));
  auto content_version = store->load();
  CAF_CHECK_EQUAL(content_version->version, version + 1);
  CAF_CHECK(content_version->items.at(0)->record().content == rewritten->record().content);
  CAF_CHECK_EQUAL(shown(0), 1u);  // as last published: payment 2 is not saved with this version
  CAF_CHECK_EQUAL(shown(1), 0u);
  CAF_CHECK(!content_version->payments);
  std::string served;
  for (auto& i : content_version->items) i->append_json(served);
  CAF_CHECK_EQUAL(content_version->bytes, served.size());
  // The interval ends: the counts are published with their payments.
  advance(250ms);
  CAF_CHECK_EQUAL(store->load()->version, version + 2);
  CAF_CHECK(store->load()->items.at(0)->record().content == rewritten->record().content);
  CAF_CHECK_EQUAL(shown(0), 2u);
  CAF_CHECK_EQUAL(shown(1), 1u);
  CAF_CHECK(payments() == (records{payment(2), payment(3)}));
  // A content change that brings payments (a settle listing a new payment-only item) is
  // published whole: the count held before it shows, and both payments are saved with it.
  advance(300ms);
  auto counted = commit({{recounted(1, 2)}, {}, {payment(4)}}, false);  // published at once: a quiet spell
  CAF_REQUIRE(acknowledged(counted));
  auto held_count = commit({{recounted(1, 3)}, {}, {payment(5)}}, false);
  CAF_REQUIRE(acknowledged(held_count));
  CAF_CHECK_EQUAL(shown(1), 2u);
  auto listed = commit({{item(3, "https://a.example.com/z")}, {}, {payment(6)}}, false);
  CAF_REQUIRE(acknowledged(listed));
  CAF_CHECK_EQUAL(store->load()->items.size(), 3u);
  CAF_CHECK_EQUAL(shown(1), 3u);
  CAF_CHECK(payments() == (records{payment(5), payment(6)}));
  // A changed declaration moves lastSeen of the items it did not rewrite. After a quiet spell
  // that goes at once with the content; within the counts interval it waits for its end.
  auto redeclared = [&](std::string description) {
    auto now = wall->now_ms();
    auto a = held[0]->record();
    auto fields = test::valid_item(terms, "https://a.example.com/x");
    fields["description"] = description;
    a.content = catalog::make_content(fields, "GET");
    a.last_seen_ms = a.last_updated_ms = now;
    auto b = held[1]->record();
    b.last_seen_ms = now;
    held[0] = catalog::make_item(std::move(a), today);
    held[1] = catalog::make_item(std::move(b), today);
    return catalog::item_change{{held[0], held[1]}, {}, {}};
  };
  auto seen = [&](std::size_t at) { return store->load()->items.at(at)->record().last_seen_ms; };
  advance(300ms);
  auto quiet = commit(redeclared("Once more."), true);
  CAF_REQUIRE(acknowledged(quiet));
  CAF_CHECK_EQUAL(seen(1), held[1]->record().last_seen_ms);
  advance(50ms);
  auto soon = commit(redeclared("And again."), true);
  CAF_REQUIRE(acknowledged(soon));
  CAF_CHECK(store->load()->items.at(0)->record().content == held[0]->record().content);
  CAF_CHECK_EQUAL(seen(0), held[0]->record().last_seen_ms);  // the rewritten item's own
  CAF_CHECK_LESS(seen(1), held[1]->record().last_seen_ms);
  advance(250ms);
  CAF_CHECK_EQUAL(seen(1), held[1]->record().last_seen_ms);
  self->send_exit(registry, caf::exit_reason::user_shutdown);
}

CAF_TEST(persistence answers a flush with the version on disk once the newest snapshot is there) {
  auto file = dir.path / "catalog.json";
  auto persistence = sys.spawn(catalog::persistence, file, 1000ms, ctx, catalog::payments_file_end{});
  auto registry = sys.spawn(catalog::registry, ctx, store, persistence, 1ms, 250ms);
  sched.run();
  auto committed = self->request(registry, caf::infinite, catalog::atom::commit::value, std::string{"p1"},
                                 catalog::item_change{{item(1, "https://a.example.com/x")}, {}, {}}, true);
  CAF_CHECK(acknowledged(committed));
  advance(2s);  // saved within the interval: appended to the journal
  auto appended = *config::read_file(catalog::journal_path(file));
  CAF_CHECK_EQUAL(std::count(appended.begin(), appended.end(), '\n'), 3);  // head, the item, its commit
  auto flushed = self->request(persistence, caf::infinite, catalog::atom::flush::value);
  auto on_disk = answer<std::uint64_t>(flushed);
  CAF_REQUIRE(on_disk);
  CAF_CHECK_EQUAL(*on_disk, store->load()->version);
  CAF_REQUIRE(std::filesystem::exists(file));
  auto load = catalog::load_catalog(file, test::start_ms);
  CAF_REQUIRE(load.state == catalog::catalog_load::status::loaded);
  CAF_REQUIRE_EQUAL(load.records.size(), 1u);
  CAF_CHECK_EQUAL(load.records[0].identity.resource, "https://a.example.com/x");
  // A flush (a clean stop) leaves the catalog in the file alone: the journal is its head.
  CAF_CHECK(config::read_file(file)->find("https://a.example.com/x") != std::string::npos);
  auto journal = *config::read_file(catalog::journal_path(file));
  CAF_CHECK_EQUAL(std::count(journal.begin(), journal.end(), '\n'), 1);
  self->send_exit(registry, caf::exit_reason::user_shutdown);
  self->send_exit(persistence, caf::exit_reason::user_shutdown);
}

CAF_TEST(a provider answers a batch of settles with one outcome per event in order) {
  auto registry = sys.spawn(catalog::registry, ctx, store, catalog::persistence_actor{}, 1ms, 250ms);
  auto provider = sys.spawn(catalog::provider, ctx, registry, std::string{"p1"}, catalog::item_list{item(1, "https://a.example.com/x")});
  sched.run();
  auto settlement = [&](const std::string& url) {
    return rules::settlement{rules::item_identity{"http", url, "GET"}, test::pay_to, "{}", rules::payment_id{}};
  };
  // A paid call on its declared item counts; one on a route it never declared does not.
  auto counted = self->request(provider, caf::infinite, catalog::atom::settled::value,
                               catalog::settle_batch{settlement("https://a.example.com/x"), settlement("https://a.example.com/new")});
  auto outcomes = answer<catalog::settle_outcomes>(counted);
  CAF_REQUIRE(outcomes);
  CAF_REQUIRE_EQUAL(outcomes->size(), 2u);
  CAF_CHECK((*outcomes)[0].state == catalog::settle_outcome::status::success);
  CAF_CHECK((*outcomes)[1].state == catalog::settle_outcome::status::rejected);
  CAF_CHECK((*outcomes)[1].cause == catalog::settle_rejection::not_declared);
  auto snap = store->load();
  CAF_REQUIRE_EQUAL(snap->items.size(), 1u);
  CAF_CHECK_EQUAL(test::newest_calls(snap->items[0]->record()), 1u);
  self->send_exit(provider, caf::exit_reason::user_shutdown);
  self->send_exit(registry, caf::exit_reason::user_shutdown);
}

CAF_TEST(the feed sends the changes since a version it holds or else a copy and then the changes of every publication) {
  auto a = item(1, "https://a.example.com/x"), b = item(2, "https://a.example.com/y"), c = item(3, "https://a.example.com/z");
  auto b2 = item(2, "https://a.example.com/y");  // a new version of b (a count moved): the same seq
  auto v1 = catalog::make_snapshot(7, 1, {a, b}, 0, 1, test::start_ms);
  auto v2 = catalog::make_snapshot(7, 2, {a, b2, c}, 2222, 2, test::start_ms);
  auto v3 = catalog::make_snapshot(7, 3, {b2, c}, 0, 1, test::start_ms);
  // v4 first counted two payments: they travel with its changes, for the follower to save.
  auto counted = std::make_shared<const std::vector<catalog::payment_record>>(
      std::vector<catalog::payment_record>{{{1, 2}, test::start_ms}, {{3, 4}, test::start_ms}});
  auto v4 = catalog::make_snapshot(7, 4, {b2}, 0, 1, test::start_ms, nullptr, counted);
  auto d = catalog::delta_between(*v1, *v2, 7);
  CAF_CHECK_EQUAL(d.from, 1u);
  CAF_CHECK_EQUAL(d.version, 2u);
  CAF_CHECK(d.upserts == (catalog::item_list{b2, c}));  // a is unchanged and does not cross
  CAF_CHECK(d.removed.empty());
  CAF_CHECK_EQUAL(d.bytes, 2222u);  // the primary's totals travel: a follower never counts them again
  CAF_CHECK_EQUAL(d.providers, 2u);
  CAF_CHECK(catalog::delta_between(*v2, *v3, 7).removed == (std::vector<std::uint64_t>{1}));
  // A new version with the same content (a count moved) crosses as its numbers alone.
  auto counts = c->record();
  counts.usage = test::calls_on(wire::utc_day(test::start_ms), 5);
  counts.last_updated_ms = test::start_ms + 9;
  auto c5 = catalog::make_item(counts, wire::utc_day(test::start_ms));
  auto recounted = catalog::delta_between(*v2, *catalog::make_snapshot(7, 3, {a, b2, c5}, 0, 2, test::start_ms), 7);
  CAF_CHECK(recounted.upserts.empty());
  CAF_REQUIRE_EQUAL(recounted.recounted.size(), 1u);
  CAF_CHECK_EQUAL(recounted.recounted[0].seq, 3u);
  CAF_CHECK(recounted.recounted[0].usage == test::calls_on(wire::utc_day(test::start_ms), 5));
  CAF_CHECK_EQUAL(recounted.recounted[0].last_updated_ms, test::start_ms + 9);

  // What each follower is sent, as "copy V" or "delta FROM-TO +upserts -removed".
  auto follower = [&](std::shared_ptr<std::vector<std::string>> got) {
    // The state travels as a spawn argument: CAF 0.17.6 dereferences a null argument tuple when a
    // function actor takes none (UBSan: "reference binding to null pointer").
    return sys.spawn([](std::shared_ptr<std::vector<std::string>> got) -> catalog::replica_feed_actor::behavior_type {
      return {
          [got](catalog::atom::copy, catalog::catalog_copy& c) { got->push_back("copy " + std::to_string(c.version)); },
          [got](catalog::atom::delta, catalog::catalog_delta& d) {
            if (!d.payments.empty()) got->push_back("payments " + std::to_string(d.payments.size()));
            got->push_back("delta " + std::to_string(d.from) + "-" + std::to_string(d.version) + " +" +
                           std::to_string(d.upserts.size()) + " -" + std::to_string(d.removed.size()));
          },
          [got](catalog::atom::keyring, std::string& text) { got->push_back("keyring " + text); },
          [](catalog::atom::checks, std::string&) {},  // what a follower makes of it: e2e_cluster
          [](catalog::atom::signed_catalog, std::uint64_t, std::int64_t, std::string&, std::string&, std::string&) {},  // e2e_trust
      };
    }, got);
  };
  auto resumed = std::make_shared<std::vector<std::string>>(), behind = std::make_shared<std::vector<std::string>>(),
       other_run = std::make_shared<std::vector<std::string>>();
  auto feed = sys.spawn(catalog::feed, ctx, v1, std::uint64_t{7}, std::size_t{2}, catalog::writes_actor{},
                        std::shared_ptr<const catalog::signed_store>{});
  self->send(feed, catalog::atom::published::value, v2);
  self->send(feed, catalog::atom::published::value, v3);  // the window (2) now holds v2 and v3
  sched.run();
  self->send(feed, catalog::atom::subscribe::value, std::uint64_t{7}, std::uint64_t{2}, catalog::replica_feed_actor{follower(resumed)});
  self->send(feed, catalog::atom::subscribe::value, std::uint64_t{7}, std::uint64_t{1}, catalog::replica_feed_actor{follower(behind)});
  self->send(feed, catalog::atom::subscribe::value, std::uint64_t{8}, std::uint64_t{3}, catalog::replica_feed_actor{follower(other_run)});
  sched.run();
  CAF_CHECK(*resumed == (std::vector<std::string>{"delta 2-3 +0 -1"}));  // held: the changes since
  CAF_CHECK(*behind == (std::vector<std::string>{"copy 3"}));            // older than the window
  CAF_CHECK(*other_run == (std::vector<std::string>{"copy 3"}));         // another run of the primary
  CAF_CHECK_EQUAL(ctx.stats->followers.load(), 3u);
  self->send(feed, catalog::atom::published::value, v4);
  sched.run();
  for (auto& got : {resumed, behind, other_run}) {
    CAF_CHECK_EQUAL(got->back(), "delta 3-4 +0 -1");
    CAF_CHECK_EQUAL(got->at(got->size() - 2), "payments 2");
  }
  // v4 went out within this second, so its tick stays quiet; after a whole second with nothing
  // published, each follower hears from the feed anyway.
  advance(catalog::feed_heartbeat + 10ms);
  for (auto& got : {resumed, behind, other_run}) CAF_CHECK_EQUAL(got->back(), "delta 3-4 +0 -1");
  advance(catalog::feed_heartbeat);
  for (auto& got : {resumed, behind, other_run}) CAF_CHECK_EQUAL(got->back(), "delta 4-4 +0 -0");
  // The keyring reaches every follower when it changes, and only then; a follower that
  // subscribes later is sent it before its catalog.
  self->send(feed, catalog::atom::keyring::value, std::string{"K1"});
  self->send(feed, catalog::atom::keyring::value, std::string{"K1"});
  sched.run();
  for (auto& got : {resumed, behind, other_run}) {
    CAF_CHECK_EQUAL(got->back(), "keyring K1");
    CAF_CHECK_EQUAL(std::count(got->begin(), got->end(), "keyring K1"), 1);
  }
  auto late = std::make_shared<std::vector<std::string>>();
  self->send(feed, catalog::atom::subscribe::value, std::uint64_t{7}, std::uint64_t{4}, catalog::replica_feed_actor{follower(late)});
  sched.run();
  CAF_CHECK(*late == (std::vector<std::string>{"keyring K1", "delta 4-4 +0 -0"}));
  self->send_exit(feed, caf::exit_reason::user_shutdown);
  sched.run();
}

CAF_TEST(the feed sends a follower at most its credit of unapplied changes and then everything since as one change) {
  auto first = catalog::make_snapshot(7, 1, {item(1, "https://a.example.com/x")}, 0, 1, test::start_ms);
  auto got = std::make_shared<std::vector<std::string>>();
  auto slow = sys.spawn([](std::shared_ptr<std::vector<std::string>> got) -> catalog::replica_feed_actor::behavior_type {
    return {
        [got](catalog::atom::copy, catalog::catalog_copy& c) { got->push_back("copy " + std::to_string(c.version)); },
        [got](catalog::atom::delta, catalog::catalog_delta& d) {
          got->push_back("delta " + std::to_string(d.from) + "-" + std::to_string(d.version) + " payments " +
                         std::to_string(d.payments.size()));
        },
        [](catalog::atom::keyring, std::string&) {},
        [](catalog::atom::checks, std::string&) {},
        [](catalog::atom::signed_catalog, std::uint64_t, std::int64_t, std::string&, std::string&, std::string&) {},
    };
  }, got);
  auto feed = sys.spawn(catalog::feed, ctx, first, std::uint64_t{7}, std::size_t{64}, catalog::writes_actor{},
                        std::shared_ptr<const catalog::signed_store>{});
  self->send(feed, catalog::atom::subscribe::value, std::uint64_t{7}, std::uint64_t{1}, slow);
  sched.run();
  // Twelve publications, each counting one payment; the follower applies none of them.
  for (std::uint64_t v = 2; v <= 13; ++v) {
    auto counted = std::make_shared<const std::vector<catalog::payment_record>>(
        std::vector<catalog::payment_record>{{{v, v}, test::start_ms}});
    self->send(feed, catalog::atom::published::value,
               catalog::make_snapshot(7, v, {item(1, "https://a.example.com/x")}, 0, 1, test::start_ms, nullptr, counted));
  }
  sched.run();
  // The subscription's answer and seven changes: eight in flight, then nothing.
  CAF_REQUIRE_EQUAL(got->size(), catalog::feed_credit);
  CAF_CHECK_EQUAL(got->back(), "delta 7-8 payments 1");
  advance(catalog::feed_heartbeat + 10ms);  // no heartbeat either: it has no credit left
  CAF_CHECK_EQUAL(got->size(), catalog::feed_credit);
  // An anonymous word, or one from a node that never subscribed, gives no credit (nor a crash).
  caf::anon_send(feed, catalog::atom::applied::value, std::uint64_t{1});
  self->send(feed, catalog::atom::applied::value, std::uint64_t{1});
  sched.run();
  CAF_CHECK_EQUAL(got->size(), catalog::feed_credit);
  // Once it applied one, it is sent everything since in one change, with every payment it missed.
  caf::send_as(slow, feed, catalog::atom::applied::value, std::uint64_t{1});
  sched.run();
  CAF_REQUIRE_EQUAL(got->size(), catalog::feed_credit + 1);
  CAF_CHECK_EQUAL(got->back(), "delta 8-13 payments 5");
  self->send_exit(feed, caf::exit_reason::user_shutdown);
  sched.run();
}

CAF_TEST(the feed hands the writes a follower forwards to this node s PROVIDER and SETTLE and answers with their outcomes) {
  start_engine();
  engine->set_payees({{test::pay_to, "p1"}});
  catalog::feed_remote_actor feed = engine->feed();
  sched.run();
  auto checked = rules::validate_declaration(test::declaration_of({test::valid_item(terms)}), {terms, test::pay_to, false, 128});
  CAF_REQUIRE(checked.has_value());
  auto declared = self->request(feed, caf::infinite, catalog::atom::declare::value, std::string{"p1"},
                                catalog::make_declare_command(std::move(*checked), "digest-1"));
  auto outcome = answer<catalog::write_outcome>(declared);
  CAF_REQUIRE(outcome);
  CAF_CHECK(outcome->state == catalog::write_outcome::status::ok);
  CAF_CHECK_EQUAL(outcome->accepted, 1u);
  CAF_CHECK_EQUAL(snap()->items.size(), 1u);
  // A heartbeat with the same digest is recognised by the PROVIDER; another is not.
  auto repeated = self->request(feed, caf::infinite, catalog::atom::repeat::value, std::string{"p1"}, std::string{"digest-1"});
  CAF_CHECK(answer<catalog::write_outcome>(repeated)->state == catalog::write_outcome::status::ok);
  auto other = self->request(feed, caf::infinite, catalog::atom::repeat::value, std::string{"p1"}, std::string{"digest-2"});
  CAF_CHECK(answer<catalog::write_outcome>(other)->state == catalog::write_outcome::status::not_a_repeat);

  // Settles: one outcome per event in order, the same payment twice counted once, an unknown
  // payee rejected; the batch's answers come back together.
  auto body = [&](const std::string& pay_to, int nonce) {
    auto requirements = test::accepts_entry(terms);
    requirements["payTo"] = pay_to;
    return boost::json::value{{"x402Version", 2},
                              {"paymentPayload", {{"x402Version", 2},
                                                  {"resource", {{"url", "https://weather.example.com/v1/weather"}}},
                                                  {"accepted", requirements},
                                                  {"payload", {{"nonce", nonce}}}}},
                              {"paymentRequirements", requirements}};
  };
  catalog::settle_batch events;
  for (auto [pay_to, nonce] : {std::pair{test::pay_to, 1}, {test::pay_to, 1}, {std::string{"uregtest1nobody"}, 2}}) {
    auto event = rules::derive_settlement(body(pay_to, nonce));
    CAF_REQUIRE(event.has_value());
    events.push_back(std::move(*event));
  }
  auto settled = self->request(feed, caf::infinite, catalog::atom::settle::value, std::move(events));
  auto outcomes = answer<catalog::settle_outcomes>(settled);
  CAF_REQUIRE(outcomes);
  CAF_REQUIRE_EQUAL(outcomes->size(), 3u);
  CAF_CHECK((*outcomes)[0].state == catalog::settle_outcome::status::success);
  CAF_CHECK((*outcomes)[1].state == catalog::settle_outcome::status::success);
  CAF_CHECK((*outcomes)[2].cause == catalog::settle_rejection::unknown_payee);
  CAF_CHECK_EQUAL(test::newest_calls(snap()->items[0]->record()), 1u);
  CAF_CHECK_EQUAL(engine->context().stats->settles_repeated.load(), 1u);

  auto removed = self->request(feed, caf::infinite, catalog::atom::delist::value, std::string{"p1"}, catalog::delist_command{true, {}});
  auto delisted = answer<catalog::write_outcome>(removed);
  CAF_CHECK(delisted->state == catalog::write_outcome::status::ok);
  CAF_CHECK_EQUAL(delisted->accepted, 1u);
  CAF_CHECK(snap()->items.empty());
}

CAF_TEST(a forwarded write lands up to its deadline on the primary s steady clock and never after) {
  start_engine();
  catalog::feed_remote_actor feed = engine->feed();
  sched.run();
  auto command = [&](std::string resource, std::string digest, std::int64_t deadline) {
    auto checked = rules::validate_declaration(test::declaration_of({test::valid_item(terms, resource)}), {terms, test::pay_to, false, 128});
    CAF_REQUIRE(checked.has_value());
    auto cmd = catalog::make_declare_command(std::move(*checked), std::move(digest));
    cmd.deadline_ms = deadline;
    return cmd;
  };
  auto send = [&](auto... xs) {
    auto handle = self->request(feed, caf::infinite, xs...);
    auto outcome = answer<catalog::write_outcome>(handle);
    CAF_REQUIRE(outcome);
    return *outcome;
  };
  auto now = catalog::steady_ms(sched.clock());
  // Within its deadline it lands; past it, a declaration changes nothing.
  auto in_time = send(catalog::atom::declare::value, std::string{"p1"}, command("https://a.example.com/x", "d1", now + 5000));
  CAF_CHECK(in_time.state == catalog::write_outcome::status::ok);
  auto late = send(catalog::atom::declare::value, std::string{"p1"}, command("https://b.example.com/y", "d2", now - 1));
  CAF_CHECK(late.state == catalog::write_outcome::status::unavailable);
  CAF_CHECK(late.problem.code == errc::unavailable);
  CAF_CHECK_NOT_EQUAL(late.problem.reason.find("stopped waiting"), std::string::npos);
  CAF_REQUIRE_EQUAL(snap()->items.size(), 1u);
  CAF_CHECK_EQUAL(snap()->items[0]->record().identity.resource, "https://a.example.com/x");
  // The same for a delisting; the clock moving on is what makes a deadline pass.
  auto deadline = catalog::steady_ms(sched.clock()) + 1000;
  advance(std::chrono::milliseconds{1001});
  auto late_delisting = send(catalog::atom::delist::value, std::string{"p1"}, catalog::delist_command{true, {}, deadline});
  CAF_CHECK(late_delisting.state == catalog::write_outcome::status::unavailable);
  CAF_CHECK_EQUAL(snap()->items.size(), 1u);
  auto delisting = send(catalog::atom::delist::value, std::string{"p1"}, catalog::delist_command{true, {}, catalog::steady_ms(sched.clock()) + 5000});
  CAF_CHECK(delisting.state == catalog::write_outcome::status::ok);
  CAF_CHECK(snap()->items.empty());
  // A write taken at this node carries no deadline, however the clock moves.
  advance(std::chrono::milliseconds{60'000});
  CAF_CHECK(send(catalog::atom::declare::value, std::string{"p1"}, command("https://c.example.com/z", "d3", 0)).state ==
            catalog::write_outcome::status::ok);
}

CAF_TEST(the feed says when it sent each copy and change on its steady clock) {
  auto first = catalog::make_snapshot(7, 1, {item(1, "https://a.example.com/x")}, 0, 1, test::start_ms);
  auto sent = std::make_shared<std::vector<std::int64_t>>();
  auto follower = sys.spawn([](std::shared_ptr<std::vector<std::int64_t>> sent) -> catalog::replica_feed_actor::behavior_type {
    return {
        [sent](catalog::atom::copy, catalog::catalog_copy& c) { sent->push_back(c.sent_ms); },
        [sent](catalog::atom::delta, catalog::catalog_delta& d) { sent->push_back(d.sent_ms); },
        [](catalog::atom::keyring, std::string&) {},
        [](catalog::atom::checks, std::string&) {},
        [](catalog::atom::signed_catalog, std::uint64_t, std::int64_t, std::string&, std::string&, std::string&) {},
    };
  }, sent);
  auto feed = sys.spawn(catalog::feed, ctx, first, std::uint64_t{7}, std::size_t{4}, catalog::writes_actor{},
                        std::shared_ptr<const catalog::signed_store>{});
  auto at_subscribe = catalog::steady_ms(sched.clock());
  self->send(feed, catalog::atom::subscribe::value, std::uint64_t{8}, std::uint64_t{1}, follower);  // another run: a copy
  sched.run();
  caf::send_as(follower, feed, catalog::atom::applied::value, std::uint64_t{1});
  advance(catalog::feed_heartbeat + std::chrono::milliseconds{10});  // nothing published: the tick's change
  CAF_REQUIRE_EQUAL(sent->size(), 2u);
  CAF_CHECK_EQUAL(sent->at(0), at_subscribe);
  CAF_CHECK_GREATER_OR_EQUAL(sent->at(1), at_subscribe + std::chrono::milliseconds{catalog::feed_heartbeat}.count());
  self->send_exit(feed, caf::exit_reason::user_shutdown);
  sched.run();
}

CAF_TEST_FIXTURE_SCOPE_END()

CAF_TEST(a follower s estimate of the primary s clock is never late and its deadlines follow from it) {
  catalog::primary_clock primary;
  constexpr std::chrono::milliseconds wait{5000};
  // A deadline lets a write land up to and at it, never after it; none is no deadline.
  CAF_CHECK(!catalog::past_deadline(1'000, 999));
  CAF_CHECK(!catalog::past_deadline(1'000, 1'000));
  CAF_CHECK(catalog::past_deadline(1'000, 1'001));
  CAF_CHECK(!catalog::past_deadline(0, 1'000'000));
  CAF_CHECK(!primary.deadline(100, wait));  // nothing heard on this link yet
  // The primary's clock reads 10,000 when this node's reads 1,000. A message that spent 40 ms in
  // transit makes it look 40 ms earlier; one that spent 2 ms, 2 ms: the latter is kept.
  primary.heard(10'000 - 40, 1'000);
  CAF_CHECK_EQUAL(primary.deadline(1'000, wait).value_or(0), 10'000 - 40 + 5'000);
  primary.heard(20'000 - 2, 11'000);
  primary.heard(30'000 - 900, 21'000);  // held up in a slow link: does not make the estimate later
  CAF_CHECK_EQUAL(primary.deadline(21'000, wait).value_or(0), 30'000 - 2 + 5'000);
  // Another link, perhaps another machine's clock: nothing until the feed speaks again.
  primary.forget();
  CAF_CHECK(!primary.deadline(21'000, wait));
  primary.heard(5, 21'000);
  CAF_CHECK_EQUAL(primary.deadline(21'010, wait).value_or(0), 5 + 10 + 5'000);
}

CAF_TEST(a follower says each reason it cannot reach its primary once and keeps a bounded number of them) {
  using news = catalog::unreachable_reasons::news;
  catalog::unreachable_reasons reasons;
  constexpr auto bound = catalog::unreachable_reasons::max_kept;
  for (std::size_t i = 0; i < bound; ++i) CAF_CHECK(reasons.heard("refused " + std::to_string(i)) == news::first);
  CAF_CHECK(reasons.heard("refused 0") == news::repeated);
  CAF_CHECK(reasons.heard("refused " + std::to_string(bound - 1)) == news::repeated);
  CAF_CHECK_EQUAL(reasons.kept(), bound);  // at the bound
  // Past it: the first new reason is said, with word that later ones are not; then none is.
  CAF_CHECK(reasons.heard("refused " + std::to_string(bound)) == news::one_more);
  for (std::size_t i = bound + 1; i < bound + 100; ++i) CAF_CHECK(reasons.heard("refused " + std::to_string(i)) == news::unsaid);
  CAF_CHECK_EQUAL(reasons.kept(), bound);
  CAF_CHECK(reasons.heard("refused 3") == news::repeated);
  // Linked again, a later outage says its reasons afresh.
  reasons.linked();
  CAF_CHECK_EQUAL(reasons.kept(), 0u);
  CAF_CHECK(reasons.heard("refused 0") == news::first);
  CAF_CHECK(reasons.heard("refused 0") == news::repeated);
}
