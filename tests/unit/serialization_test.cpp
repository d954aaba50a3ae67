#define CAF_SUITE serialization
// What can cross machines (catalog/serialization.hpp) comes back from CAF's binary serializer
// as it went in: values on their own, and whole messages as a remote node receives them.
#include "engine_fixture.hpp"

#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>

using namespace z402;
using boost::json::array;

namespace {

struct fixture : test::engine_fixture {
  fixture() { start_engine(); }

  template <class T>
  std::vector<char> save(T x) {
    std::vector<char> buf;
    caf::binary_serializer sink{sys, buf};
    auto err = sink(x);
    CAF_REQUIRE(!err);
    return buf;
  }

  template <class T>
  caf::error load(const std::vector<char>& buf, T& x) {
    caf::binary_deserializer source{sys, buf};
    return source(x);
  }

  template <class T>
  T round_trip(T x) {
    T copy;
    auto err = load(save(std::move(x)), copy);
    CAF_REQUIRE(!err);
    return copy;
  }

  /// Two declared items (one with a bazaar extension, one MCP tool) and one paid call on the first.
  catalog::item_list catalog_items() {
    auto weather = test::valid_item(terms);
    auto tool = test::valid_item(terms, "https://tools.example.com/mcp");
    tool["type"] = "mcp";
    tool["extensions"].as_object()["bazaar"] = test::bazaar_mcp();
    CAF_REQUIRE(declare_items("p1", test::pay_to, array{weather, tool}).state == catalog::write_outcome::status::ok);
    engine->set_payees({{test::pay_to, "p1"}});
    std::optional<catalog::settle_outcome> paid;
    engine->settle(settlement_for("https://weather.example.com/v1/weather"),
                   catalog::settle_completion{[&](catalog::settle_outcome o) { paid = std::move(o); },
                                              catalog::settle_outcome::rejected(catalog::settle_rejection::unavailable, "dropped")});
    advance(std::chrono::milliseconds{10});
    CAF_REQUIRE(paid && paid->state == catalog::settle_outcome::status::success);
    auto& listed = snap()->items;
    catalog::item_list items(listed.begin(), listed.end());
    CAF_REQUIRE_EQUAL(test::newest_calls(items.at(0)->record()), 1u);
    return items;
  }

  int payments = 0;  // payload nonces made so far

  rules::settlement settlement_for(const std::string& url) {
    auto requirements = test::accepts_entry(terms);
    boost::json::object body{{"x402Version", 2},
                             {"paymentPayload", {{"x402Version", 2}, {"resource", {{"url", url}}}, {"accepted", requirements}, {"payload", {{"nonce", ++payments}}}}},
                             {"paymentRequirements", requirements}};
    auto event = rules::derive_settlement(body);
    CAF_REQUIRE(event.has_value());
    return *event;
  }
};

void check_same_item(const catalog::item_ptr& a, const catalog::item_ptr& b) {
  CAF_CHECK_EQUAL(a->json(), b->json());
  CAF_CHECK_EQUAL(a->rendered_day(), b->rendered_day());
  auto& x = a->record();
  auto& y = b->record();
  CAF_CHECK_EQUAL(x.provider, y.provider);
  CAF_CHECK_EQUAL(x.identity.key(), y.identity.key());
  CAF_CHECK_EQUAL(x.declared, y.declared);
  CAF_CHECK_EQUAL(x.seq, y.seq);
  CAF_CHECK_EQUAL(x.last_seen_ms, y.last_seen_ms);
  CAF_CHECK_EQUAL(x.last_updated_ms, y.last_updated_ms);
  CAF_CHECK(x.usage == y.usage);
  auto& c = *x.content;
  auto& d = *y.content;
  CAF_CHECK_EQUAL(c.json, d.json);
  CAF_CHECK_EQUAL(c.filter_keys, d.filter_keys);
  CAF_CHECK(c.prices == d.prices);
  // The search terms arrive as they were made: the same words in every field.
  CAF_CHECK_EQUAL(c.doc.text, d.doc.text);
  CAF_CHECK(c.doc.ends == d.doc.ends);
  CAF_CHECK(c.doc.first == d.doc.first);
  CAF_CHECK(c.doc.length == d.doc.length);
  CAF_CHECK_EQUAL(c.doc.origin, d.doc.origin);
}

}  // namespace

CAF_TEST_FIXTURE_SCOPE(serialization_tests, fixture)

CAF_TEST(an item change arrives with the same items byte for byte and the same removals and payments) {
  auto items = catalog_items();
  CAF_REQUIRE_EQUAL(items.size(), 2u);
  CAF_REQUIRE(!items[0]->record().content->doc.text.empty());
  std::vector<catalog::payment_record> paid{{{0xfedcba9876543210u, 1}, 1767225600000}, {{2, 0xffffffffffffffffu}, 1}};
  catalog::item_change change{items, {7, 42}, paid};
  auto copy = round_trip(change);
  CAF_REQUIRE_EQUAL(copy.upserts.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) check_same_item(items[i], copy.upserts[i]);
  CAF_CHECK(copy.removed == (std::vector<std::uint64_t>{7, 42}));
  CAF_CHECK(copy.payments == paid);
}

CAF_TEST(a feed change arrives with its items and its recounted numbers and payments) {
  auto items = catalog_items();
  std::vector<catalog::payment_record> paid{{{3, 4}, 1767225600000}};
  catalog::catalog_delta d{0xfedcba9876543210u, 5, 9, items, {{2, false, 10, 11, test::calls_on(20454, 12), 20455}}, {7}, 1234, 3, paid};
  auto copy = round_trip(d);
  CAF_CHECK_EQUAL(copy.epoch, d.epoch);
  CAF_CHECK_EQUAL(copy.from, 5u);
  CAF_CHECK_EQUAL(copy.version, 9u);
  CAF_REQUIRE_EQUAL(copy.upserts.size(), items.size());
  for (std::size_t i = 0; i < items.size(); ++i) check_same_item(items[i], copy.upserts[i]);
  CAF_REQUIRE_EQUAL(copy.recounted.size(), 1u);
  auto& c = copy.recounted[0];
  CAF_CHECK(c.seq == 2 && !c.declared && c.last_seen_ms == 10 && c.last_updated_ms == 11 &&
            c.usage == test::calls_on(20454, 12) && c.rendered_day == 20455);
  CAF_CHECK(copy.removed == (std::vector<std::uint64_t>{7}));
  CAF_CHECK_EQUAL(copy.bytes, 1234u);
  CAF_CHECK_EQUAL(copy.providers, 3u);
  CAF_CHECK(copy.payments == paid);
}

CAF_TEST(a declaration and a delisting arrive as they were sent) {
  auto items = catalog_items();
  catalog::declare_command cmd;
  cmd.digest = "d1g3st";
  for (auto& it : items) cmd.items.push_back({it->record().identity, it->record().content});
  auto copy = round_trip(cmd);
  CAF_CHECK_EQUAL(copy.digest, "d1g3st");
  CAF_REQUIRE_EQUAL(copy.items.size(), 2u);
  CAF_CHECK_EQUAL(copy.items[1].identity.key(), cmd.items[1].identity.key());
  CAF_CHECK_EQUAL(copy.items[1].content->json, cmd.items[1].content->json);
  CAF_CHECK_EQUAL(copy.items[1].content->doc.text, cmd.items[1].content->doc.text);

  auto delist = round_trip(catalog::delist_command{false, {"a\x1f" "b\x1f" "GET", "c"}});
  CAF_CHECK(!delist.all);
  CAF_CHECK(delist.keys == (std::vector<std::string>{"a\x1f" "b\x1f" "GET", "c"}));
  CAF_CHECK(round_trip(catalog::delist_command{true, {}}).all);
}

CAF_TEST(write and settle outcomes arrive with their state and cause and reason) {
  auto w = round_trip(catalog::write_outcome{catalog::write_outcome::status::refused, {errc::catalog_full, "items", "the catalog is full"}, 3, 1234});
  CAF_CHECK(w.state == catalog::write_outcome::status::refused);
  CAF_CHECK(w.problem.code == errc::catalog_full);
  CAF_CHECK_EQUAL(w.problem.field, "items");
  CAF_CHECK_EQUAL(w.problem.reason, "the catalog is full");
  CAF_CHECK_EQUAL(w.accepted, 3u);
  CAF_CHECK_EQUAL(w.last_seen_ms, 1234);
  catalog::settle_outcomes outcomes{catalog::settle_outcome::success(),
                                    catalog::settle_outcome::rejected(catalog::settle_rejection::not_declared, "paymentPayload.resource.url: none")};
  auto copy = round_trip(outcomes);
  CAF_REQUIRE_EQUAL(copy.size(), 2u);
  CAF_CHECK(copy[0].state == catalog::settle_outcome::status::success);
  CAF_CHECK(copy[1].state == catalog::settle_outcome::status::rejected);
  CAF_CHECK(copy[1].cause == catalog::settle_rejection::not_declared);
  CAF_CHECK_EQUAL(copy[1].reason, "paymentPayload.resource.url: none");
}

CAF_TEST(a settlement arrives with its body and its key) {
  auto event = settlement_for("https://weather.example.com/v1/weather");
  auto copy = round_trip(event);
  CAF_CHECK_EQUAL(copy.pay_to(), event.pay_to());
  CAF_CHECK_EQUAL(copy.key(), event.key());
  CAF_CHECK_EQUAL(copy.body(), event.body());
  CAF_CHECK(copy.payment() == event.payment());  // named again from the text on arrival
  // What the receiver does with it: the same fields for an item listed from payments alone.
  auto a = rules::payment_only_fields(event, terms, false);
  auto b = rules::payment_only_fields(copy, terms, false);
  CAF_REQUIRE(a && b);
  CAF_CHECK(*a == *b);
}

CAF_TEST(a settlement whose body is not JSON is refused on arrival by code) {
  auto buf = save(settlement_for("https://weather.example.com/v1/weather"));
  // The body is the last field: its text's final byte (a closing brace) becomes a stray one.
  buf.back() = '!';
  rules::settlement copy;
  auto err = load(buf, copy);
  CAF_CHECK(err == errc::corrupt);
  CAF_CHECK_EQUAL(sys.render(err), "z402::corrupt");
}

CAF_TEST(a whole message between nodes keeps its registered types) {
  auto items = catalog_items();
  auto copy = round_trip(caf::make_message(catalog::atom::commit::value, std::string{"p1"}, catalog::item_change{items, {9}, {}}, true));
  CAF_REQUIRE((copy.match_elements<catalog::atom::commit, std::string, catalog::item_change, bool>()));
  CAF_CHECK_EQUAL(copy.get_as<std::string>(1), "p1");
  auto& change = copy.get_as<catalog::item_change>(2);
  CAF_REQUIRE_EQUAL(change.upserts.size(), 2u);
  check_same_item(items[0], change.upserts[0]);
  CAF_CHECK(change.removed == std::vector<std::uint64_t>{9});
  CAF_CHECK(copy.get_as<bool>(3));

  auto batch = round_trip(caf::make_message(
      catalog::atom::settled::value, catalog::settle_batch{settlement_for("https://a.example.com/x"), settlement_for("https://b.example.com/y")}));
  CAF_REQUIRE((batch.match_elements<catalog::atom::settled, catalog::settle_batch>()));
  auto second = settlement_for("https://b.example.com/y");
  CAF_CHECK_EQUAL(batch.get_as<catalog::settle_batch>(1)[1].key(), second.key());
}

CAF_TEST(catalog errors are compared by code and rendered by name) {
  caf::error err = make_error(errc::catalog_full);
  CAF_CHECK(err == errc::catalog_full);
  CAF_CHECK(err != errc::unavailable);
  CAF_CHECK(err.category() == caf::atom("z402"));
  CAF_CHECK_EQUAL(sys.render(err), "z402::catalog_full");
}

CAF_TEST_FIXTURE_SCOPE_END()
