#define CAF_SUITE catalog
#include "engine_fixture.hpp"

#include "z402/core/crypto.hpp"
#include "z402/catalog/catalog_file.hpp"
#include "routes/declaration_checker.hpp"
#include "routes/signed_catalog.hpp"
#include "z402/config/atomic_file.hpp"
#include "z402/config/signing_files.hpp"
#include "z402/trust/statements.hpp"
#include "z402/wire/iso_time.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

using namespace z402;
using namespace std::chrono_literals;
using boost::json::array;
using boost::json::object;

namespace {

using test::start_ms;

struct fixture : test::engine_fixture {
  test::temp_dir dir{"z402-catalog"};  // for the tests with a catalog file

  fixture() { start_engine(); }

  object item(const std::string& resource, const std::string& description = "A route.") {
    auto i = test::valid_item(terms, resource);
    i["description"] = description;
    return i;
  }

  catalog::write_outcome declare(const std::string& provider, array items, std::string digest = {}) {
    return declare_items(provider, test::pay_to, std::move(items), std::move(digest));
  }

  // The last declaration again, known by its digest alone: sent without its items, so only the
  // PROVIDER's heartbeat keeps them (any other declaration of no items would list nothing new).
  catalog::write_outcome heartbeat(const std::string& provider, std::string digest) {
    std::optional<catalog::write_outcome> outcome;
    engine->declare(provider, catalog::make_declare_command({}, std::move(digest)),
                    catalog::write_completion{[&](catalog::write_outcome o) { outcome = std::move(o); },
                                              catalog::write_outcome::unavailable("dropped")});
    return run_until_answered(outcome);
  }

  // The published items of one provider, by resource.
  std::map<std::string, catalog::item_ptr> items_of(const std::string& provider) const {
    std::map<std::string, catalog::item_ptr> out;
    for (auto& i : snap()->items)
      if (i->record().provider == provider) out[i->record().identity.resource] = i;
    return out;
  }

  object served(const catalog::item_ptr& i) const { return boost::json::parse(i->json()).as_object(); }

  // A declaration as the server makes it (routes::declaration_desk): its body checked by
  // `checker` against the published catalog, then declared. The command's contents are in `sent`.
  catalog::write_outcome declare_checked(routes::declaration_checker& checker, const std::string& provider, array items,
                                         std::vector<catalog::content_ptr>& sent, const std::string& pay_to = test::pay_to) {
    auto body = boost::json::serialize(test::declaration_of(std::move(items)));
    auto checked = checker.check(provider, pay_to, body, crypto::sha256_hex(body), *snap());
    CAF_REQUIRE(checked.has_value());
    sent.clear();
    for (auto& i : checked->items) sent.push_back(i.content);
    std::optional<catalog::write_outcome> outcome;
    engine->declare(provider, std::move(*checked),
                    catalog::write_completion{[&](catalog::write_outcome o) { outcome = std::move(o); },
                                              catalog::write_outcome::unavailable("dropped")});
    return run_until_answered(outcome);
  }

  routes::declaration_checker new_checker() const { return routes::declaration_checker{terms, false, 128}; }

  // The catalog's content of p1's item at `resource`.
  const catalog::item_content* held(const std::string& resource) const {
    return items_of("p1").at(resource)->record().content.get();
  }
};

config::catalog_limits limits_with(std::size_t per_provider, std::size_t items, std::size_t bytes) {
  config::catalog_limits l;
  l.max_items_per_provider = per_provider;
  l.max_items = items;
  l.max_catalog_bytes = bytes;
  return l;
}

}  // namespace

CAF_TEST_FIXTURE_SCOPE(catalog_tests, fixture)

CAF_TEST(a declaration upserts sets lastSeen and leaves omitted items) {
  auto ok = declare("p1", array{item("https://a.example.com/one"), item("https://a.example.com/two")});
  CAF_CHECK(ok.state == catalog::write_outcome::status::ok);
  CAF_CHECK_EQUAL(ok.accepted, 2u);
  auto first_seen = ok.last_seen_ms;
  CAF_CHECK_EQUAL(first_seen, start_ms);
  advance(30s);
  declare("p1", array{item("https://a.example.com/two", "Changed text.")});
  auto mine = items_of("p1");
  CAF_REQUIRE_EQUAL(mine.size(), 2u);
  auto& one = mine.at("https://a.example.com/one")->record();
  auto& two = mine.at("https://a.example.com/two")->record();
  CAF_CHECK_EQUAL(one.last_seen_ms, first_seen);
  CAF_CHECK_EQUAL(two.last_seen_ms, first_seen + 10 + 30'000);  // 10 ms of coalescing, then 30 s
  CAF_CHECK_EQUAL(two.last_updated_ms, two.last_seen_ms);
  auto two_fields = boost::json::parse(two.content->json);
  auto description = two_fields.at("description").as_string();
  CAF_CHECK_EQUAL(description, "Changed text.");
  std::string served_seen{served(mine.at("https://a.example.com/two")).at("lastSeen").as_string()};
  CAF_CHECK_EQUAL(served_seen, wire::format_iso_ms(two.last_seen_ms));
  // First listed stays first.
  CAF_CHECK_EQUAL(snap()->items.front()->record().identity.resource, "https://a.example.com/one");
  // The same content declared again refreshes lastSeen, not lastUpdated.
  advance(30s);
  declare("p1", array{item("https://a.example.com/two", "Changed text.")});
  auto again = items_of("p1").at("https://a.example.com/two")->record();
  CAF_CHECK_EQUAL(again.last_updated_ms, two.last_updated_ms);
  CAF_CHECK_GREATER(again.last_seen_ms, two.last_seen_ms);
}

CAF_TEST(an item declared again as it was is not checked again and keeps the content the catalog holds) {
  auto checker = new_checker();
  auto items = [&](const std::string& second) {
    return array{item("https://a.example.com/one"), item("https://a.example.com/two", second), item("https://a.example.com/three")};
  };
  std::vector<catalog::content_ptr> sent;
  CAF_REQUIRE(declare_checked(checker, "p1", items("A route."), sent).state == catalog::write_outcome::status::ok);
  auto first = sent;
  // New items: the catalog took these contents.
  CAF_CHECK_EQUAL(held("https://a.example.com/one"), first[0].get());
  CAF_CHECK_EQUAL(held("https://a.example.com/two"), first[1].get());
  // One item changed: only it gets a new content; the others are recalled.
  declare_checked(checker, "p1", items("Changed text."), sent);
  CAF_CHECK_EQUAL(sent[0].get(), first[0].get());
  CAF_CHECK_EQUAL(sent[2].get(), first[2].get());
  CAF_CHECK_NOT_EQUAL(sent[1].get(), first[1].get());
  CAF_CHECK_EQUAL(held("https://a.example.com/two"), sent[1].get());
  auto changed = boost::json::parse(sent[1]->json);
  CAF_CHECK_EQUAL(changed.at("description").as_string(), "Changed text.");
  auto second = sent;

  // A checker that knows nothing (a restart) checks every item, and takes the catalog's own
  // content where its text is the same: the catalog sees nothing rewritten.
  auto fresh = new_checker();
  declare_checked(fresh, "p1", items("Changed text."), sent);
  for (std::size_t i = 0; i < 3; ++i) CAF_CHECK_EQUAL(sent[i].get(), second[i].get());
  CAF_CHECK_EQUAL(held("https://a.example.com/two"), second[1].get());
}

CAF_TEST(a body equal to the last one checked is recalled without parsing while the catalog holds its items) {
  auto checker = new_checker();
  auto body = boost::json::serialize(test::declaration_of(array{item("https://a.example.com/one")}));
  auto digest = crypto::sha256_hex(body);
  auto first = checker.check("p1", test::pay_to, body, digest, *snap());
  CAF_REQUIRE(first.has_value());
  auto content = first->items.at(0).content;
  // The digest names the body: text that is not even JSON under the same digest is not read.
  auto again = checker.check("p1", test::pay_to, "not json", digest, *snap());
  CAF_REQUIRE(again.has_value());
  CAF_CHECK_EQUAL(again->digest, digest);
  CAF_REQUIRE_EQUAL(again->items.size(), 1u);
  CAF_CHECK_EQUAL(again->items[0].content.get(), content.get());
  // Under another payTo, or without a digest, the body is read (and this one refused).
  CAF_CHECK(!checker.check("p1", "uregtest1other", "not json", digest, *snap()).has_value());
  CAF_CHECK(!checker.check("p1", test::pay_to, "not json", "", *snap()).has_value());
  // Once nothing holds its contents (the catalog never took them), the body is read again.
  first = catalog::declare_command{};
  again = catalog::declare_command{};
  content.reset();
  CAF_CHECK(!checker.check("p1", test::pay_to, "not json", digest, *snap()).has_value());
}

CAF_TEST(a remembered item is checked again under another payTo and once the catalog dropped it) {
  auto checker = new_checker();
  std::vector<catalog::content_ptr> sent;
  auto one = item("https://a.example.com/one");
  auto two = item("https://a.example.com/two");
  CAF_REQUIRE(declare_checked(checker, "p1", array{one, two}, sent).state == catalog::write_outcome::status::ok);
  // Its accepts entries name the payTo it was checked for: under another one the same bytes are refused.
  auto other = checker.check("p1", "uregtest1other", boost::json::serialize(test::declaration_of(array{one, two})), "", *snap());
  CAF_REQUIRE(!other.has_value());
  auto rules_say = rules::validate_declaration(test::declaration_of(array{one, two}), {terms, "uregtest1other", false, 128});
  CAF_REQUIRE(!rules_say.has_value());
  CAF_CHECK_EQUAL(other.error().message(), rules_say.error().message());
  CAF_CHECK(other.error().item == std::optional<std::size_t>{0});

  // Delisted, the item's content is freed: declared again, it is checked and made anew.
  std::weak_ptr<const catalog::item_content> was = sent[1];
  sent.clear();
  std::optional<catalog::write_outcome> delisted;
  engine->delist("p1", catalog::delist_command{false, {rules::item_identity{"http", "https://a.example.com/two", "GET"}.key()}},
                 catalog::write_completion{[&](catalog::write_outcome o) { delisted = std::move(o); },
                                           catalog::write_outcome::unavailable("dropped")});
  auto delisting = run_until_answered(delisted);
  CAF_REQUIRE_EQUAL(delisting.accepted, 1u);
  CAF_CHECK(was.expired());
  declare_checked(checker, "p1", array{one, two}, sent);
  CAF_REQUIRE_EQUAL(sent.size(), 2u);
  auto made = boost::json::parse(sent[1]->json);
  CAF_CHECK_EQUAL(made.at("resource").as_string(), "https://a.example.com/two");
  CAF_CHECK_EQUAL(items_of("p1").at("https://a.example.com/two")->record().content.get(), sent[1].get());
}

CAF_TEST(a declaration with remembered items is refused as the rules refuse it) {
  auto checker = new_checker();
  std::vector<catalog::content_ptr> sent;
  auto one = item("https://a.example.com/one");
  CAF_REQUIRE(declare_checked(checker, "p1", array{one}, sent).state == catalog::write_outcome::status::ok);
  auto bad = item("https://a.example.com/two");
  bad["x402Version"] = 1;
  for (auto& body : {array{one, bad}, array{one, one}, array{}}) {
    auto checked = checker.check("p1", test::pay_to, boost::json::serialize(test::declaration_of(body)), "", *snap());
    auto rules_say = rules::validate_declaration(test::declaration_of(body), {terms, test::pay_to, false, 128});
    CAF_REQUIRE(!checked.has_value());
    CAF_REQUIRE(!rules_say.has_value());
    CAF_CHECK_EQUAL(checked.error().message(), rules_say.error().message());
    CAF_CHECK_EQUAL(checked.error().field, rules_say.error().field);
    CAF_CHECK(checked.error().item == rules_say.error().item);
  }
}

CAF_TEST(a provider never touches another providers items) {
  declare("p1", array{item("https://shared.example.com/x")});
  auto before = items_of("p1").at("https://shared.example.com/x");
  advance(1s);
  declare("p2", array{item("https://shared.example.com/x", "Mine now?")});
  declare("p2", array{item("https://other.example.com/y")});
  CAF_CHECK_EQUAL(snap()->items.size(), 3u);
  auto after = items_of("p1").at("https://shared.example.com/x");
  CAF_CHECK_EQUAL(after.get(), before.get());  // the very same immutable item: not even re-serialised
  CAF_CHECK_EQUAL(items_of("p2").size(), 2u);
  CAF_CHECK_EQUAL(snap()->providers, 2u);
}

CAF_TEST(the catalog item budget refuses whole and changes nothing) {
  start_engine(limits_with(128, 3, 16u << 20), {});
  declare("p1", array{item("https://a.example.com/1"), item("https://a.example.com/2")});
  auto version = snap()->version;
  auto p1_before = items_of("p1");
  auto refused = declare("p2", array{item("https://b.example.com/1"), item("https://b.example.com/2")});
  CAF_CHECK(refused.state == catalog::write_outcome::status::refused);
  CAF_CHECK(refused.problem.code == errc::catalog_full);
  CAF_CHECK_EQUAL(refused.problem.field, "items");
  CAF_CHECK_EQUAL(refused.problem.reason, "the catalog is full");
  CAF_CHECK_EQUAL(snap()->version, version);
  CAF_CHECK(items_of("p2").empty());
  CAF_CHECK_EQUAL(items_of("p1").size(), 2u);
  CAF_CHECK_EQUAL(items_of("p1").begin()->second.get(), p1_before.begin()->second.get());
  // Exactly at the limit is fine.
  CAF_CHECK(declare("p2", array{item("https://b.example.com/1")}).state == catalog::write_outcome::status::ok);
  CAF_CHECK_EQUAL(snap()->items.size(), 3u);
  // A provider that only refreshes what it has is not refused by a full catalog.
  CAF_CHECK(declare("p1", array{item("https://a.example.com/1")}).state == catalog::write_outcome::status::ok);
}

CAF_TEST(the catalog byte budget refuses whole) {
  declare("probe", array{item("https://a.example.com/1")});
  auto one_item = snap()->bytes;
  start_engine(limits_with(128, 4096, one_item * 2 + 20), {});
  CAF_CHECK(declare("p1", array{item("https://a.example.com/1")}).state == catalog::write_outcome::status::ok);
  CAF_CHECK(declare("p2", array{item("https://a.example.com/1")}).state == catalog::write_outcome::status::ok);
  auto refused = declare("p3", array{item("https://a.example.com/1")});
  CAF_CHECK(refused.state == catalog::write_outcome::status::refused);
  CAF_CHECK(refused.problem.code == errc::catalog_full);
  CAF_CHECK_EQUAL(refused.problem.field, "items");
  CAF_CHECK_EQUAL(refused.problem.reason, "the catalog is full");
  CAF_CHECK_EQUAL(snap()->items.size(), 2u);
}

CAF_TEST(a provider lists at most its own budget of items) {
  start_engine(limits_with(2, 4096, 16u << 20), {});
  CAF_CHECK(declare("p1", array{item("https://a.example.com/1"), item("https://a.example.com/2")}).state ==
            catalog::write_outcome::status::ok);
  auto refused = declare("p1", array{item("https://a.example.com/3")});
  CAF_CHECK(refused.state == catalog::write_outcome::status::refused);
  CAF_CHECK(refused.problem.code == errc::invalid_request);
  CAF_CHECK_EQUAL(refused.problem.field, "items");
  CAF_CHECK_EQUAL(refused.problem.reason, "a provider may list at most 2 items");
  CAF_CHECK_EQUAL(items_of("p1").size(), 2u);
  CAF_CHECK_EQUAL(items_of("p1").count("https://a.example.com/3"), 0u);
}

CAF_TEST(items are evicted after the retention period without activity) {
  config::catalog_limits limits;
  limits.retention = 1h;
  start_engine(limits, {});
  declare("p1", array{item("https://a.example.com/old")});
  advance(30min);
  declare("p1", array{item("https://a.example.com/new")});
  advance(29min);
  CAF_CHECK_EQUAL(items_of("p1").size(), 2u);
  advance(1min);  // an hour after the first declaration
  auto left = items_of("p1");
  CAF_REQUIRE_EQUAL(left.size(), 1u);
  CAF_CHECK_EQUAL(left.begin()->first, "https://a.example.com/new");
  advance(30min);
  CAF_CHECK(items_of("p1").empty());
}

CAF_TEST(a heartbeat keeps an item from eviction) {
  config::catalog_limits limits;
  limits.retention = 1h;
  start_engine(limits, {});
  for (int beat = 0; beat < 5; ++beat) {
    declare("p1", array{item("https://a.example.com/alive")});
    advance(50min);
  }
  CAF_CHECK_EQUAL(items_of("p1").size(), 1u);
}

CAF_TEST(a heartbeat repeating the last declaration only moves lastSeen on) {
  declare("p1", array{item("https://a.example.com/one"), item("https://a.example.com/two")}, "digest-1");
  auto before = items_of("p1").at("https://a.example.com/one")->record();
  advance(30s);
  // Known by its digest: the PROVIDER neither compares nor rebuilds the items.
  auto again = declare("p1", array{item("https://a.example.com/one", "Other text.")}, "digest-1");
  CAF_REQUIRE(again.state == catalog::write_outcome::status::ok);
  CAF_CHECK_EQUAL(again.accepted, 2u);
  auto after = items_of("p1").at("https://a.example.com/one")->record();
  CAF_CHECK_EQUAL(after.last_seen_ms, again.last_seen_ms);
  CAF_CHECK(after.last_seen_ms > before.last_seen_ms);
  CAF_CHECK(after.content == before.content);
  CAF_CHECK_EQUAL(after.last_updated_ms, before.last_updated_ms);
  // Another digest, none, or the same digest from another provider: declared in full.
  CAF_CHECK_EQUAL(declare("p1", array{item("https://a.example.com/one", "Other text.")}, "digest-2").accepted, 1u);
  CAF_CHECK(items_of("p1").at("https://a.example.com/one")->record().content != before.content);
  CAF_CHECK_EQUAL(declare("p2", array{item("https://b.example.com/one")}, "digest-2").accepted, 1u);
  CAF_CHECK_EQUAL(heartbeat("p1", "digest-2").accepted, 1u);  // the last one repeats
  CAF_CHECK_EQUAL(heartbeat("p1", "").accepted, 0u);          // no digest: nothing known
  CAF_CHECK_EQUAL(heartbeat("p1", "digest-1").accepted, 0u);  // an earlier one does not
  CAF_CHECK_EQUAL(items_of("p1").size(), 2u);                 // and a declaration of nothing removes nothing
}

CAF_TEST(a heartbeat whose items have left is declared in full) {
  config::catalog_limits limits;
  limits.retention = 1h;
  start_engine(limits, {});
  declare("p1", array{item("https://a.example.com/gone")}, "digest-1");
  advance(61min);
  CAF_CHECK(items_of("p1").empty());
  CAF_CHECK_EQUAL(declare("p1", array{item("https://a.example.com/gone")}, "digest-1").accepted, 1u);
  CAF_CHECK_EQUAL(items_of("p1").size(), 1u);
}

CAF_TEST(paidCallsToday reads 0 from midnight UTC without any traffic) {
  // 23:00 UTC, with 5 paid calls today.
  auto evening = start_ms + 13 * 3'600'000LL;
  catalog::item_record r;
  r.provider = "p1";
  r.content = catalog::make_content(test::valid_item(terms, "https://a.example.com/paid"), "GET");
  r.identity = {"http", "https://a.example.com/paid", "GET"};
  r.seq = 7;
  r.last_seen_ms = evening;
  r.last_updated_ms = evening;
  r.usage = test::calls_on(wire::utc_day(evening), 5);
  wall = std::make_shared<manual_wall_clock>(evening);
  start_engine({}, {r});
  auto paid = [&] { return served(snap()->items.at(0)).at("paidCallsToday").as_int64(); };
  CAF_CHECK_EQUAL(paid(), 5);
  advance(59min + 59s + 999ms);
  CAF_CHECK_EQUAL(paid(), 5);
  advance(1ms);  // 00:00:00.000 UTC
  CAF_CHECK_EQUAL(wire::format_iso_ms(wall->now_ms()).substr(11), "00:00:00.000Z");
  CAF_CHECK_EQUAL(paid(), 0);
  CAF_CHECK_EQUAL(snap()->items.at(0)->record().seq, 7u);
}

CAF_TEST(the catalog loaded at start is readable before any actor has run) {
  std::vector<catalog::item_record> loaded;
  for (auto [seq, url] : {std::pair{9u, "https://a.example.com/later"}, std::pair{4u, "https://a.example.com/first"}}) {
    catalog::item_record r;
    r.provider = "p1";
    r.content = catalog::make_content(test::valid_item(terms, url), "GET");
    r.identity = {"http", url, "GET"};
    r.seq = seq;
    loaded.push_back(std::move(r));
  }
  engine.reset();
  sched.run();
  catalog::engine_options options;
  options.clock = wall;
  options.initial = loaded;
  options.persistence_thread = false;
  engine = std::make_unique<catalog::engine>(sys, std::move(options));
  // No sched.run(): a server's first read comes before the actors are scheduled.
  auto first = engine->snapshots().load();
  CAF_CHECK_EQUAL(first->version, 1u);
  CAF_REQUIRE_EQUAL(first->items.size(), 2u);
  CAF_CHECK_EQUAL(first->items[0]->record().seq, 4u);  // listing order
  CAF_CHECK_EQUAL(first->providers, 1u);
  CAF_CHECK_EQUAL(first->bytes, first->items[0]->json_size() + first->items[1]->json_size());
  sched.run();
  // The registry goes on from it: the next change is version 2, and keeps both items.
  declare("p2", array{item("https://b.example.com/1")});
  CAF_CHECK_EQUAL(snap()->version, 2u);
  CAF_CHECK_EQUAL(snap()->items.size(), 3u);
}

CAF_TEST(a removed provider leaves the catalog) {
  declare("p1", array{item("https://a.example.com/1")});
  declare("p2", array{item("https://b.example.com/1")});
  engine->forget_provider("p1");
  sched.run();
  advance(10ms);
  CAF_CHECK(items_of("p1").empty());
  CAF_CHECK_EQUAL(items_of("p2").size(), 1u);
}

CAF_TEST(a declaration sent to a stopped engine still gets an answer) {
  engine->stop();
  sched.run();
  auto outcome = declare("p1", array{item("https://a.example.com/1")});
  CAF_CHECK(outcome.state == catalog::write_outcome::status::unavailable);
}

CAF_TEST(a completion that is dropped answers with its fallback) {
  std::optional<catalog::write_outcome> outcome;
  {
    catalog::write_completion done{[&](catalog::write_outcome o) { outcome = std::move(o); },
                                   catalog::write_outcome::unavailable("dropped")};
    auto copy = done;  // messages copy it: only the last copy answers
  }
  CAF_REQUIRE(outcome.has_value());
  CAF_CHECK(outcome->problem.code == errc::unavailable);
  CAF_CHECK_EQUAL(outcome->problem.reason, "dropped");
  int calls = 0;
  {
    catalog::write_completion done{[&](catalog::write_outcome) { ++calls; }, catalog::write_outcome::unavailable("x")};
    done(catalog::write_outcome{catalog::write_outcome::status::ok, {}, 1, 1});
    done(catalog::write_outcome{catalog::write_outcome::status::ok, {}, 1, 1});
  }
  CAF_CHECK_EQUAL(calls, 1);
  // A caller that wants no answer gives an empty function: answered or dropped, no one is called.
  {
    catalog::write_completion answered{std::function<void(catalog::write_outcome)>{}, catalog::write_outcome::unavailable("x")};
    answered(catalog::write_outcome{catalog::write_outcome::status::ok, {}, 1, 1});
    catalog::write_completion dropped{std::function<void(catalog::write_outcome)>{}, catalog::write_outcome::unavailable("x")};
  }
}

CAF_TEST(the catalog file keeps what a restart needs) {
  auto file = dir.path / "catalog.json";
  start_engine({}, {}, file);
  declare("p1", array{item("https://a.example.com/1"), item("https://a.example.com/2")});
  advance(2s);  // past the coalescing interval of the writer
  auto loaded = catalog::load_catalog(file, wall->now_ms());
  CAF_REQUIRE(loaded.state == catalog::catalog_load::status::loaded);
  CAF_REQUIRE_EQUAL(loaded.records.size(), 2u);
  CAF_CHECK_EQUAL(loaded.records[0].provider, "p1");
  CAF_CHECK_EQUAL(loaded.records[0].identity.resource, "https://a.example.com/1");
  CAF_CHECK_EQUAL(loaded.records[1].seq, snap()->items[1]->record().seq);
  // It names the state it holds, so a follower can resume from it.
  CAF_CHECK_EQUAL(loaded.position.epoch, snap()->epoch);
  CAF_CHECK_EQUAL(loaded.position.version, snap()->version);
  CAF_CHECK_EQUAL(loaded.position.day, catalog::rendered_day_of(*snap()).value_or(0));
  // A restart from the file lists the same items in the same order, and new ones after them.
  start_engine({}, loaded.records, file);
  CAF_CHECK_EQUAL(snap()->items.size(), 2u);
  declare("p2", array{item("https://b.example.com/1")});
  CAF_CHECK_EQUAL(snap()->items.back()->record().provider, "p2");
}

CAF_TEST(the catalog file holds one item a line and older one line files still load) {
  auto file = dir.path / "catalog.json";
  start_engine({}, {}, file);
  declare("p1", array{item("https://a.example.com/1"), item("https://a.example.com/2")});
  advance(2s);
  // A run's first save writes the file whole.
  start_engine({}, catalog::load_catalog(file, wall->now_ms()).records, file);
  auto text = *config::read_file(file);
  CAF_CHECK_EQUAL(std::count(text.begin(), text.end(), '\n'), 3);  // head, two items, end
  CAF_CHECK(boost::json::parse(text).at("items").as_array().size() == 2u);  // still one document
  // The layout before one item a line: the same document on one line.
  std::erase(text, '\n');
  CAF_CHECK(config::write_file_atomically(file, text).has_value());
  auto loaded = catalog::load_catalog(file, wall->now_ms());
  CAF_REQUIRE(loaded.state == catalog::catalog_load::status::loaded);
  CAF_CHECK_EQUAL(loaded.records.size(), 2u);
  // A file cut after its first item is corrupt, not half a catalog.
  std::filesystem::remove(catalog::journal_path(file));
  start_engine({}, loaded.records, file);
  auto lines = *config::read_file(file);
  // A head without the position (files written before it was kept) loads, with none to resume.
  auto old_head = std::string{"{\"format\":\"z402-catalog\",\"version\":1,"} + lines.substr(lines.find("\"items\":["));
  CAF_CHECK(config::write_file_atomically(file, old_head).has_value());
  auto older = catalog::load_catalog(file, wall->now_ms());
  CAF_REQUIRE(older.state == catalog::catalog_load::status::loaded);
  CAF_CHECK_EQUAL(older.records.size(), 2u);
  CAF_CHECK_EQUAL(older.position.epoch, 0u);
  // A position that is not a number is corrupt, not silently ignored.
  auto bad_epoch = lines;
  bad_epoch.replace(bad_epoch.find("\"epoch\":\"") + 9, 1, "x");
  CAF_CHECK(config::write_file_atomically(file, bad_epoch).has_value());
  CAF_CHECK(catalog::load_catalog(file, 45).state == catalog::catalog_load::status::corrupt);
  CAF_CHECK(config::write_file_atomically(file, lines.substr(0, lines.find('\n', lines.find('\n') + 1) + 1)).has_value());
  CAF_CHECK(catalog::load_catalog(file, 44).state == catalog::catalog_load::status::corrupt);
}

// The journal's lines after byte `from`, by kind.
std::map<std::string, int> journal_lines_after(const std::filesystem::path& file, std::size_t from) {
  auto text = *config::read_file(catalog::journal_path(file));
  std::map<std::string, int> kinds;
  std::istringstream lines{text.substr(from)};
  for (std::string l; std::getline(lines, l);)
    if (!l.empty()) ++kinds[l.substr(2, l.find('"', 2) - 2)];
  return kinds;
}

std::size_t journal_size(const std::filesystem::path& file) { return std::filesystem::file_size(catalog::journal_path(file)); }

CAF_TEST(a save after the first appends to the journal only what changed) {
  auto file = dir.path / "catalog.json";
  start_engine({}, {}, file);
  declare("p1", array{item("https://a.example.com/1"), item("https://a.example.com/2")}, "d1");
  declare("p2", array{item("https://b.example.com/1")});
  advance(2s);
  auto file_text = *config::read_file(file);  // the run's first save: the catalog before any item
  auto lines = journal_lines_after(file, 0);
  CAF_CHECK_EQUAL(lines["item"], 3);
  CAF_CHECK_EQUAL(lines["commit"], 1);
  // A heartbeat: two lines of six numbers, not the items.
  auto before = journal_size(file);
  advance(30s);
  CAF_REQUIRE(heartbeat("p1", "d1").state == catalog::write_outcome::status::ok);
  advance(2s);
  lines = journal_lines_after(file, before);
  CAF_CHECK_EQUAL(lines["state"], 2);
  CAF_CHECK_EQUAL(lines["item"], 0);
  CAF_CHECK_LESS(journal_size(file) - before, 400u);
  // One item rewritten: that item; a provider gone: its item removed.
  before = journal_size(file);
  declare("p1", array{item("https://a.example.com/1", "Rewritten."), item("https://a.example.com/2")});
  engine->forget_provider("p2");
  advance(2s);
  lines = journal_lines_after(file, before);
  CAF_CHECK_EQUAL(lines["item"], 1);
  CAF_CHECK_EQUAL(lines["state"], 1);  // the other item's lastSeen moved on
  CAF_CHECK_EQUAL(lines["removed"], 1);
  CAF_CHECK_EQUAL(lines["commit"], 2);  // the first change after a quiet second is saved at once
  // Nothing changed: nothing saved.
  before = journal_size(file);
  advance(2s);
  CAF_CHECK_EQUAL(journal_size(file), before);
  CAF_CHECK(*config::read_file(file) == file_text);  // the file itself was not written again
  // The file and its journal load as the catalog is, at its position.
  auto loaded = catalog::load_catalog(file, wall->now_ms());
  CAF_REQUIRE(loaded.state == catalog::catalog_load::status::loaded);
  CAF_CHECK(loaded.journal_problem.empty());
  CAF_REQUIRE_EQUAL(loaded.records.size(), snap()->items.size());
  for (std::size_t i = 0; i < loaded.records.size(); ++i) {
    auto& r = snap()->items[i]->record();
    CAF_CHECK_EQUAL(loaded.records[i].seq, r.seq);
    CAF_CHECK_EQUAL(loaded.records[i].last_seen_ms, r.last_seen_ms);
    CAF_CHECK_EQUAL(loaded.records[i].last_updated_ms, r.last_updated_ms);
    CAF_CHECK_EQUAL(loaded.records[i].content->json, r.content->json);
  }
  CAF_CHECK_EQUAL(loaded.position.version, snap()->version);
}

CAF_TEST(a journal is folded into the catalog file past the file and past a floor) {
  CAF_CHECK(!catalog::journal_full(catalog::journal_fold_floor, 0));
  CAF_CHECK(catalog::journal_full(catalog::journal_fold_floor + 1, 0));
  CAF_CHECK(!catalog::journal_full(3 * catalog::journal_fold_floor, 3 * catalog::journal_fold_floor));
  CAF_CHECK(catalog::journal_full(3 * catalog::journal_fold_floor + 1, 3 * catalog::journal_fold_floor));
  // Heartbeats of 128 items until the journal passes the floor: the next save writes the file.
  auto file = dir.path / "catalog.json";
  start_engine({}, {}, file);
  array items;
  for (int i = 0; i < 128; ++i) items.push_back(item("https://a.example.com/" + std::to_string(i)));
  declare("p1", items, "d1");
  // Three providers' items in one batch, more than the 256 KiB an append writes at a time.
  for (auto p : {"p2", "p3"}) {
    array theirs;
    for (int i = 0; i < 128; ++i) theirs.push_back(item("https://" + std::string{p} + ".example.com/" + std::to_string(i)));
    declare(p, theirs);
  }
  advance(2s);
  CAF_CHECK_GREATER(journal_size(file), 256u << 10);
  CAF_CHECK_EQUAL(catalog::load_catalog(file, wall->now_ms()).records.size(), 384u);
  auto empty_file = *config::read_file(file);
  while (journal_size(file) <= catalog::journal_fold_floor) {
    CAF_REQUIRE(heartbeat("p1", "d1").state == catalog::write_outcome::status::ok);
    advance(2s);
    CAF_REQUIRE(*config::read_file(file) == empty_file);
  }
  CAF_REQUIRE(heartbeat("p1", "d1").state == catalog::write_outcome::status::ok);
  advance(2s);
  CAF_CHECK(*config::read_file(file) != empty_file);
  auto lines = journal_lines_after(file, 0);
  CAF_CHECK_EQUAL(lines.size(), 1u);  // its head alone
  auto loaded = catalog::load_catalog(file, wall->now_ms());
  CAF_REQUIRE_EQUAL(loaded.records.size(), 384u);
  CAF_CHECK_EQUAL(loaded.records[0].last_seen_ms, snap()->items[0]->record().last_seen_ms);
}

CAF_TEST(a torn journal append is ignored and a broken committed batch moves the journal aside) {
  auto file = dir.path / "catalog.json";
  auto journal = catalog::journal_path(file);
  start_engine({}, {}, file);
  declare("p1", array{item("https://a.example.com/1"), item("https://a.example.com/2")}, "d1");
  advance(2s);
  auto good = *config::read_file(journal);
  auto version = catalog::load_catalog(file, wall->now_ms()).position.version;
  auto append = [&](const std::string& text) { std::ofstream{journal, std::ios::app | std::ios::binary} << text; };
  // A crash mid-append: a line cut short, or whole lines without their commit.
  append(R"({"state":{"seq":1,"declared":true,"lastSe)");
  auto torn = catalog::load_catalog(file, wall->now_ms());
  CAF_CHECK(torn.journal_problem.empty());
  CAF_CHECK_EQUAL(torn.records.size(), 2u);
  CAF_CHECK_EQUAL(torn.position.version, version);
  CAF_CHECK(config::write_file_atomically(journal, good + "{\"removed\":" + std::to_string(snap()->items[0]->record().seq) + "}\n").has_value());
  auto uncommitted = catalog::load_catalog(file, wall->now_ms());
  CAF_CHECK(uncommitted.journal_problem.empty());
  CAF_CHECK_EQUAL(uncommitted.records.size(), 2u);
  // The next save cuts a torn append off: its batch lands whole after the last good one.
  advance(30s);
  CAF_REQUIRE(heartbeat("p1", "d1").state == catalog::write_outcome::status::ok);
  advance(2s);
  auto saved = catalog::load_catalog(file, wall->now_ms());
  CAF_CHECK(saved.journal_problem.empty());
  CAF_CHECK_EQUAL(saved.records.size(), 2u);
  CAF_CHECK_EQUAL(saved.records[0].last_seen_ms, snap()->items[0]->record().last_seen_ms);
  // A broken line, or a change to an item the catalog does not hold, before a commit: the
  // journal is moved aside and the file's items load alone.
  std::string commit = R"({"commit":{"epoch":"1","catalogVersion":99,"day":1}})";
  for (auto bad : {std::string{"not json\n"}, std::string{R"({"state":{"seq":777,"declared":true,"lastSeen":1,"lastUpdated":1,"paidCalls":1,"paidDay":1}})"} + "\n",
                   std::string{R"({"removed":777})"} + "\n", std::string{R"({"other":1})"} + "\n"}) {
    CAF_CHECK(config::write_file_atomically(journal, good + bad + commit + "\n").has_value());
    auto broken = catalog::load_catalog(file, 46);
    CAF_CHECK(!broken.journal_problem.empty());
    CAF_CHECK(broken.state == catalog::catalog_load::status::loaded);
    CAF_CHECK_EQUAL(broken.records.size(), 0u);  // the file was written before the items
    CAF_CHECK(!std::filesystem::exists(journal));
    CAF_CHECK(std::filesystem::exists(dir.path / "catalog.json.journal.corrupt-46"));
    std::filesystem::remove(dir.path / "catalog.json.journal.corrupt-46");
  }
  // A journal that continues another catalog file (written before this one): left unread.
  auto other = good;
  other.replace(other.find("\"catalogVersion\":") + 17, 1, "9");
  CAF_CHECK(config::write_file_atomically(journal, other).has_value());
  auto stale = catalog::load_catalog(file, 47);
  CAF_CHECK(stale.journal_problem.empty());
  CAF_CHECK_EQUAL(stale.records.size(), 0u);
  CAF_CHECK(std::filesystem::exists(journal));
}

CAF_TEST(a journal that cannot be appended fails the save and the next save writes the file whole) {
  auto file = dir.path / "catalog.json";
  auto journal = catalog::journal_path(file);
  start_engine({}, {}, file);
  declare("p1", array{item("https://a.example.com/1")}, "d1");
  advance(2s);
  // The journal's place taken by a directory: neither an append nor a new journal can be written.
  std::filesystem::remove(journal);
  std::filesystem::create_directory(journal);
  advance(30s);
  CAF_REQUIRE(heartbeat("p1", "d1").state == catalog::write_outcome::status::ok);
  advance(2s);
  auto& stats = *engine->context().stats;
  CAF_CHECK_GREATER(stats.save_failures.load(), 0u);
  CAF_CHECK((*stats.last_save_error.load()).find("catalog.json.journal") != std::string::npos);
  std::filesystem::remove(journal);
  advance(6s);  // the retry, at most 5 s after the last
  CAF_CHECK_EQUAL(stats.save_failing_since_ms.load(), 0);
  auto lines = journal_lines_after(file, 0);
  CAF_CHECK_EQUAL(lines.size(), 1u);  // written whole: the journal is its head alone
  auto loaded = catalog::load_catalog(file, wall->now_ms());
  CAF_REQUIRE_EQUAL(loaded.records.size(), 1u);
  CAF_CHECK_EQUAL(loaded.records[0].last_seen_ms, snap()->items[0]->record().last_seen_ms);
}

CAF_TEST(a content keeps its filter keys packed and a damaged packing ends the walk where it breaks) {
  auto fields = test::valid_item(terms, "https://a.example.com/x");
  auto& entry = fields["accepts"].as_array()[0].as_object();
  std::string long_pay_to(200, 'p');  // a length of two varint bytes
  entry["payTo"] = long_pay_to;
  auto content = catalog::make_content(fields, "GET");
  std::vector<std::string> keys;
  content->for_each_filter_key([&](std::string_view k) { keys.emplace_back(k); });
  std::vector<std::string> expected{"payTo\x1f" + long_pay_to, "scheme\x1f" + std::string{entry["scheme"].as_string()},
                                    "network\x1f" + std::string{entry["network"].as_string()},
                                    "asset\x1f" + std::string{entry["asset"].as_string()}, "extensions\x1f" "bazaar",
                                    "extensions\x1f" "z402"};
  CAF_CHECK(keys == expected);
  CAF_CHECK_EQUAL(content->filter_keys.capacity(), content->filter_keys.size());
  // Cut inside the second key, inside the first key's two-byte length, and a length of more
  // than five bytes: the walk yields what is whole and stops.
  auto walk = [](std::string packed) {
    catalog::item_content c;
    c.filter_keys = std::move(packed);
    std::vector<std::string> out;
    c.for_each_filter_key([&](std::string_view k) { out.emplace_back(k); });
    return out;
  };
  auto first = expected[0].size() + 2;
  CAF_CHECK(walk(content->filter_keys.substr(0, first + 5)) == std::vector<std::string>{expected[0]});
  CAF_CHECK(walk(content->filter_keys.substr(0, 1)).empty());
  CAF_CHECK(walk(std::string(6, '\xff') + "x").empty());
}

CAF_TEST(a listing shares its chunks with earlier versions and never changes theirs) {
  auto content = catalog::make_content(test::valid_item(terms, "https://a.example.com/x"), "GET");
  auto item_at = [&](std::uint64_t seq) {
    catalog::item_record r;
    r.provider = "p1";
    r.content = content;
    r.seq = seq;
    return catalog::make_item(std::move(r), 0);
  };
  auto seqs = [](const catalog::listing_items& l) {
    std::vector<std::uint64_t> out;
    for (auto& it : l) out.push_back(it->record().seq);
    return out;
  };
  catalog::listing_items list;
  std::vector<std::uint64_t> expected;
  for (std::uint64_t seq = 1; seq <= 2 * catalog::listing_items::chunk_size; ++seq) {
    list.push_back(item_at(seq));
    expected.push_back(seq);
  }
  auto published = list;  // two full chunks: a new item starts a third
  list.push_back(item_at(1000));
  CAF_CHECK_EQUAL(published.size(), 2 * catalog::listing_items::chunk_size);
  CAF_CHECK_EQUAL(list.size(), 2 * catalog::listing_items::chunk_size + 1);
  CAF_CHECK(&published[0] == &list[0]);  // untouched chunks are the same memory
  // A change copies the chunk it touches: the published version keeps its item.
  auto before = published;
  list.set(list.begin() + 300, item_at(301));  // a new version of the item
  CAF_CHECK(list[300] != published[300]);
  CAF_CHECK(&published[0] == &list[0]);
  CAF_CHECK(&published[300] != &list[300]);
  // Removed and inserted across the chunks' boundary (255/256): order kept, the versions before untouched.
  list.erase(list.begin() + 255);
  expected.erase(expected.begin() + 255);
  expected.push_back(1000);
  CAF_CHECK(seqs(list) == expected);
  list.insert(list.begin() + 255, item_at(256));
  expected.insert(expected.begin() + 255, 256);
  CAF_CHECK(seqs(list) == expected);
  CAF_CHECK_EQUAL(list.size(), 2 * catalog::listing_items::chunk_size + 1);
  list.erase(list.end() - 1);
  CAF_CHECK_EQUAL(list.back()->record().seq, 2 * catalog::listing_items::chunk_size);
  CAF_CHECK(seqs(published) == seqs(before));
  CAF_CHECK(published[300] == before[300]);
  CAF_CHECK_EQUAL(catalog::position_of(list, 300) - list.begin(), 299);
  bool refused = false;
  try {
    list.at(list.size());
  } catch (const std::out_of_range&) {
    refused = true;
  }
  CAF_CHECK(refused);
}

CAF_TEST(a corrupt catalog file is moved aside) {
  auto file = dir.path / "catalog.json";
  CAF_CHECK(config::write_file_atomically(file, "{\"format\":\"z402-catalog\",\"version\":1,\"items\":[{\"provider\":").has_value());
  auto loaded = catalog::load_catalog(file, 42);
  CAF_CHECK(loaded.state == catalog::catalog_load::status::corrupt);
  CAF_CHECK(loaded.records.empty());
  CAF_CHECK(!std::filesystem::exists(file));
  CAF_CHECK(std::filesystem::exists(dir.path / "catalog.json.corrupt-42"));
  CAF_CHECK(catalog::load_catalog(file, 43).state == catalog::catalog_load::status::missing);
}

CAF_TEST(a signed catalog is re-signed before its note has less than 10 minutes left and a change is signed within 10 s) {
  test::temp_dir dir{"z402-signer"};
  auto files = config::signing_files_in(dir.path);
  auto root = std::move(*trust::generate_signer("bazaar.test"));
  auto online = std::move(*trust::generate_signer("bazaar.test/online"));
  CAF_REQUIRE(config::write_file_atomically(files.online_key, online.text() + "\n"));
  trust::keys_statement keys{"bazaar.test", start_ms + 90LL * 86'400'000, {online.verifier()}};
  CAF_REQUIRE(config::write_file_atomically(files.keys_note, *trust::sign_note(trust::text_of(keys), root)));
  auto loaded = config::load_signing_keys(files, start_ms);
  CAF_REQUIRE(loaded);
  signing = catalog::engine_options::signing_setup{files, std::move(*loaded), 41};
  start_engine();
  auto first = engine->signed_catalog();
  CAF_REQUIRE(first);
  CAF_CHECK_EQUAL(first->sequence, 42u);  // after the last on disk
  auto opened = trust::open_note(first->note, {online.verifier()});
  CAF_REQUIRE(opened.note);
  auto statement = trust::parse_catalog_statement(opened.note->text);
  CAF_REQUIRE(statement);
  CAF_CHECK_EQUAL(statement->size, first->bytes->size());
  // Twenty minutes of an unchanged catalog: re-signed every 5 minutes, never under 10 minutes left.
  std::int64_t least_left = std::numeric_limits<std::int64_t>::max();
  for (int s = 0; s < 20 * 60; ++s) {
    advance(1s);
    least_left = std::min(least_left, engine->signed_catalog()->expires_ms - wall->now_ms());
  }
  CAF_CHECK_GREATER_OR_EQUAL(least_left, 10 * 60'000);
  CAF_CHECK_EQUAL(engine->signed_catalog()->sequence, 46u);
  auto on_disk = config::read_sequence(files.sequence);
  CAF_REQUIRE(on_disk);
  CAF_CHECK_EQUAL(*on_disk, 46u);
  // A change is signed once 10 s have passed since the last note, and the note before stays served.
  auto before = engine->signed_catalog();
  declare("p1", array{item("https://a.example.com/signed")});
  int waited = 0;
  while (engine->signed_catalog() == before && waited < 30) advance(1s), ++waited;
  CAF_CHECK_LESS_OR_EQUAL(waited, 10);
  auto changed = engine->signed_catalog();
  CAF_CHECK(changed->bytes->find("https://a.example.com/signed") != std::string::npos);
  CAF_REQUIRE(changed->previous);
  CAF_CHECK(changed->previous->sha256 == before->sha256);
  CAF_CHECK(!changed->previous->previous);
  // Served up to its expiry, and no longer: a follower cut off answers 503 once its note expired.
  http::request req{http::bhttp::verb::get, "/discovery/catalog/note", 11};
  auto at_expiry = routes::signed_catalog_response(req, "/discovery/catalog/note", changed, changed->expires_ms);
  CAF_CHECK_EQUAL(at_expiry.result_int(), 200u);
  auto past = routes::signed_catalog_response(req, "/discovery/catalog/note", changed, changed->expires_ms + 1);
  CAF_CHECK_EQUAL(past.result_int(), 503u);
  CAF_CHECK(past.body().find("\"signed_catalog_expired\"") != std::string::npos);
  auto bytes_path = "/discovery/catalog/" + trust::catalog_file_name(changed->sha256);
  CAF_CHECK_EQUAL(routes::signed_catalog_response(req, bytes_path, changed, changed->expires_ms + 1).result_int(), 200u);
}

CAF_TEST_FIXTURE_SCOPE_END()
