#define CAF_SUITE settle
#include "engine_fixture.hpp"

#include "z402/wire/iso_time.hpp"

using namespace z402;
using namespace std::chrono_literals;
using boost::json::array;
using boost::json::object;
using boost::json::value;

namespace {

using test::start_ms;
const std::string pay_one = test::pay_to, pay_two = "uregtest1two", pay_three = "uregtest1three";

struct fixture : test::engine_fixture {
  fixture() { start({}); }

  void start(config::catalog_limits limits) {
    start_engine(limits);
    // p1 and p2 declare; p3 only ever gets paid.
    engine->set_payees({{pay_one, "p1"}, {pay_two, "p2"}, {pay_three, "p3"}});
    sched.run();
  }

  void declare(const std::string& provider, const std::string& pay_to, array items) {
    for (auto& i : items) i.as_object()["accepts"].as_array()[0].as_object()["payTo"] = pay_to;
    CAF_REQUIRE(declare_items(provider, pay_to, std::move(items)).state == catalog::write_outcome::status::ok);
  }

  object requirements(const std::string& pay_to) {
    auto r = test::accepts_entry(terms);
    r["payTo"] = pay_to;
    return r;
  }

  object body(const std::string& pay_to, const std::string& url, std::optional<object> bazaar = std::nullopt) {
    object payload{{"x402Version", 2},
                   {"resource", {{"url", url}, {"description", "echoed text"}, {"mimeType", "application/json"},
                                 {"serviceName", "Echoed"}, {"tags", array{"echo"}}}},
                   {"accepted", requirements("uregtest1payerchosen")},
                   {"payload", object{}}};
    if (bazaar) payload["extensions"] = object{{"bazaar", *bazaar}};
    return {{"x402Version", 2}, {"paymentPayload", payload}, {"paymentRequirements", requirements(pay_to)}};
  }

  catalog::settle_outcome settle(const value& b) {
    std::optional<catalog::settle_outcome> outcome;
    engine->settle(b, catalog::settle_completion{[&](catalog::settle_outcome o) { outcome = std::move(o); },
                                                 catalog::settle_outcome::rejected(catalog::settle_rejection::unavailable, "dropped")});
    sched.run();
    if (!outcome) advance(10ms);
    CAF_REQUIRE(outcome.has_value());
    return *outcome;
  }

  void rejected(const value& b, const std::string& reason_part) {
    auto o = settle(b);
    CAF_CHECK(o.state == catalog::settle_outcome::status::rejected);
    if (o.reason.find(reason_part) == std::string::npos)
      CAF_FAIL("reason '" << o.reason << "' does not contain '" << reason_part << "'");
  }

  catalog::item_ptr find(const std::string& provider, const std::string& resource) {
    for (auto& i : engine->snapshots().load()->items)
      if (i->record().provider == provider && i->record().identity.resource == resource) return i;
    return nullptr;
  }

  std::size_t count_of(const std::string& provider) {
    std::size_t n = 0;
    for (auto& i : engine->snapshots().load()->items) n += i->record().provider == provider;
    return n;
  }

  std::int64_t paid(const catalog::item_ptr& i) {
    return boost::json::parse(i->json()).as_object().at("paidCallsToday").as_int64();
  }
};

}  // namespace

CAF_TEST_FIXTURE_SCOPE(settle_tests, fixture)

CAF_TEST(a settle counts on the item of the provider whose payTo it names) {
  declare("p1", pay_one, array{test::valid_item(terms, "https://shared.example.com/x")});
  declare("p2", pay_two, array{test::valid_item(terms, "https://shared.example.com/x")});
  auto o = settle(body(pay_two, "https://SHARED.example.com:443/x/?q=1"));
  CAF_CHECK(o.state == catalog::settle_outcome::status::success);
  CAF_CHECK_EQUAL(paid(find("p2", "https://shared.example.com/x")), 1);
  CAF_CHECK_EQUAL(paid(find("p1", "https://shared.example.com/x")), 0);
  CAF_CHECK_EQUAL(engine->context().stats->settles_counted.load(), 1u);
}

CAF_TEST(a settle sets lastUpdated and leaves lastSeen) {
  declare("p1", pay_one, array{test::valid_item(terms, "https://a.example.com/x")});
  auto seen = find("p1", "https://a.example.com/x")->record().last_seen_ms;
  advance(5s);
  for (int i = 0; i < 3; ++i) settle(body(pay_one, "https://a.example.com/x"));
  auto it = find("p1", "https://a.example.com/x");
  CAF_CHECK_EQUAL(paid(it), 3);
  CAF_CHECK_EQUAL(it->record().last_seen_ms, seen);
  // Counted after the 5 s, before the helper's last 10 ms of coalescing.
  CAF_CHECK_GREATER_OR_EQUAL(it->record().last_updated_ms, seen + 5000);
  CAF_CHECK_LESS_OR_EQUAL(it->record().last_updated_ms, wall->now_ms());
}

CAF_TEST(the method and routeTemplate of the bazaar extension name the item) {
  auto post = test::valid_item(terms, "https://api.example.com/users/1");
  auto bazaar = test::bazaar_get();
  bazaar["routeTemplate"] = "/users/:id";
  post["extensions"].as_object()["bazaar"] = bazaar;
  declare("p1", pay_one, array{post});
  CAF_REQUIRE(find("p1", "https://api.example.com/users/:id"));
  auto echoed = bazaar;
  CAF_CHECK(settle(body(pay_one, "https://api.example.com/users/42", echoed)).state == catalog::settle_outcome::status::success);
  CAF_CHECK_EQUAL(paid(find("p1", "https://api.example.com/users/:id")), 1);
  // The same URL paid as POST is another item, which this declaring provider does not list.
  echoed["info"].as_object()["input"].as_object()["method"] = "POST";
  rejected(body(pay_one, "https://api.example.com/users/42", echoed), "none matches http https://api.example.com/users/:id POST");
}

CAF_TEST(echoed metadata never overwrites a declared item) {
  declare("p1", pay_one, array{test::valid_item(terms, "https://a.example.com/x")});
  auto before = find("p1", "https://a.example.com/x")->record().content->json;
  auto evil = test::bazaar_get();
  evil["info"].as_object()["output"].as_object()["example"] = object{{"evil", true}};
  CAF_CHECK(settle(body(pay_one, "https://a.example.com/x", evil)).state == catalog::settle_outcome::status::success);
  CAF_CHECK(find("p1", "https://a.example.com/x")->record().content->json == before);
}

CAF_TEST(echoed metadata never creates an item for a provider that declares) {
  declare("p1", pay_one, array{test::valid_item(terms, "https://a.example.com/x")});
  rejected(body(pay_one, "https://a.example.com/other"), "this provider declares its items and none matches");
  CAF_CHECK_EQUAL(count_of("p1"), 1u);
}

CAF_TEST(a provider that never declared is listed from its payments alone) {
  auto o = settle(body(pay_three, "https://thin.example.com/v1/x?secret=1", test::bazaar_get()));
  CAF_REQUIRE(o.state == catalog::settle_outcome::status::success);
  auto it = find("p3", "https://thin.example.com/v1/x");
  CAF_REQUIRE(it);
  auto served = boost::json::parse(it->json()).as_object();
  // accepts from the server's requirements, never the payer's `accepted`.
  CAF_CHECK_EQUAL(served.at("accepts").as_array()[0].at("payTo").as_string(), pay_three);
  CAF_CHECK_EQUAL(served.at("mimeType").as_string(), "application/json");
  CAF_CHECK(served.at("extensions").as_object().contains("bazaar"));
  for (auto absent : {"description", "serviceName", "tags", "iconUrl", "lastSeen"}) CAF_CHECK(!served.contains(absent));
  CAF_CHECK_EQUAL(served.at("paidCallsToday").as_int64(), 1);
  CAF_CHECK(!it->record().declared);
}

CAF_TEST(payment-only listings are capped at 8 per provider) {
  for (int i = 0; i < 8; ++i)
    CAF_CHECK(settle(body(pay_three, "https://thin.example.com/r" + std::to_string(i))).state ==
              catalog::settle_outcome::status::success);
  rejected(body(pay_three, "https://thin.example.com/r8"), "already has 8 items listed from payments alone");
  CAF_CHECK_EQUAL(count_of("p3"), 8u);
  // Paying for a listed one still counts.
  CAF_CHECK(settle(body(pay_three, "https://thin.example.com/r3")).state == catalog::settle_outcome::status::success);
  CAF_CHECK_EQUAL(paid(find("p3", "https://thin.example.com/r3")), 2);
}

CAF_TEST(a first declaration replaces payment-only items and keeps a matching count) {
  settle(body(pay_three, "https://thin.example.com/kept"));
  settle(body(pay_three, "https://thin.example.com/kept"));
  settle(body(pay_three, "https://thin.example.com/dropped"));
  auto seq = find("p3", "https://thin.example.com/kept")->record().seq;
  declare("p3", pay_three, array{test::valid_item(terms, "https://thin.example.com/kept")});
  CAF_CHECK_EQUAL(count_of("p3"), 1u);
  auto kept = find("p3", "https://thin.example.com/kept");
  CAF_CHECK(kept->record().declared);
  CAF_CHECK_EQUAL(kept->record().seq, seq);
  CAF_CHECK_EQUAL(paid(kept), 2);
  rejected(body(pay_three, "https://thin.example.com/dropped"), "this provider declares");
}

CAF_TEST(x402 v1 settle bodies are understood and normalised) {
  auto req = requirements(pay_three);
  req.erase("amount");
  req["maxAmountRequired"] = "2500";
  req["network"] = "zcash-regtest";
  req["resource"] = "https://v1.example.com/api";
  req["mimeType"] = "application/json";
  req["description"] = "ignored";
  req["outputSchema"] = object{{"input", {{"type", "http"}, {"method", "POST"}}}, {"output", object{}}};
  value v1 = object{{"x402Version", 1},
                    {"paymentPayload", {{"x402Version", 1}, {"scheme", terms.scheme}, {"network", "zcash-regtest"}, {"payload", object{}}}},
                    {"paymentRequirements", req}};
  auto o = settle(v1);
  CAF_REQUIRE(o.state == catalog::settle_outcome::status::success);
  auto it = find("p3", "https://v1.example.com/api");
  CAF_REQUIRE(it);
  CAF_CHECK_EQUAL(it->record().identity.selector, "POST");
  auto accepts = boost::json::parse(it->record().content->json).at("accepts").as_array()[0].as_object();
  CAF_CHECK_EQUAL(accepts.at("amount").as_string(), "2500");
  CAF_CHECK_EQUAL(accepts.at("network").as_string(), "zcash:regtest");
  CAF_CHECK(!accepts.contains("maxAmountRequired"));
  CAF_CHECK(!accepts.contains("resource"));
  CAF_CHECK_EQUAL(rules::normalise_network("base"), "eip155:8453");
  CAF_CHECK_EQUAL(rules::normalise_network("eip155:1"), "eip155:1");
}

CAF_TEST(the UTC day rolls over between two settles) {
  wall = std::make_shared<catalog::manual_wall_clock>(start_ms + 14 * 3'600'000LL - 1000);  // 23:59:59.000
  start({});
  declare("p1", pay_one, array{test::valid_item(terms, "https://a.example.com/x")});
  settle(body(pay_one, "https://a.example.com/x"));
  settle(body(pay_one, "https://a.example.com/x"));
  CAF_CHECK_EQUAL(paid(find("p1", "https://a.example.com/x")), 2);
  advance(2s);  // 00:00:01 the next day
  settle(body(pay_one, "https://a.example.com/x"));
  CAF_CHECK_EQUAL(paid(find("p1", "https://a.example.com/x")), 1);
}

CAF_TEST(a burst is counted exactly in batches) {
  declare("p1", pay_one, array{test::valid_item(terms, "https://a.example.com/x")});
  std::size_t ok = 0, answered = 0;
  auto b = body(pay_one, "https://a.example.com/x");
  for (int i = 0; i < 1000; ++i)
    engine->settle(b, catalog::settle_completion{[&](catalog::settle_outcome o) {
                                                   ++answered;
                                                   ok += o.state == catalog::settle_outcome::status::success;
                                                 },
                                                 catalog::settle_outcome::rejected(catalog::settle_rejection::unavailable, "dropped")});
  for (int i = 0; i < 50 && answered < 1000; ++i) advance(10ms);
  CAF_CHECK_EQUAL(answered, 1000u);
  CAF_CHECK_EQUAL(ok, 1000u);
  CAF_CHECK_EQUAL(paid(find("p1", "https://a.example.com/x")), 1000);
}

CAF_TEST(a batch of settles is answered event by event in order) {
  declare("p1", pay_one, array{test::valid_item(terms, "https://a.example.com/x")});
  catalog::settle_batch events;
  catalog::settle_answers answers;
  std::vector<std::string> got(4);
  const char* urls[] = {"https://a.example.com/x", "https://a.example.com/x", "https://a.example.com/x",
                        "https://thin.example.com/x"};
  const std::string payees[] = {pay_one, "uregtest1nobody", pay_one, pay_three};
  for (int i = 0; i < 4; ++i) {
    auto event = rules::derive_settlement(body(payees[i], urls[i]));
    CAF_REQUIRE(event.has_value());
    events.push_back(std::move(*event));
    answers.emplace_back([&got, i](catalog::settle_outcome o) {
      got[i] = o.state == catalog::settle_outcome::status::success ? "success" : o.reason;
    }, catalog::settle_outcome::rejected(catalog::settle_rejection::unavailable, "dropped"));
  }
  engine->settle(std::move(events), std::move(answers));
  sched.run();
  advance(10ms);
  CAF_CHECK_EQUAL(got[0], "success");
  CAF_CHECK(got[1].find("no provider is registered") != std::string::npos);
  CAF_CHECK_EQUAL(got[2], "success");
  CAF_CHECK_EQUAL(got[3], "success");
  CAF_CHECK_EQUAL(paid(find("p1", "https://a.example.com/x")), 2);
  CAF_CHECK_EQUAL(paid(find("p3", "https://thin.example.com/x")), 1);
}

CAF_TEST(every rejection names its reason) {
  declare("p1", pay_one, array{test::valid_item(terms, "https://a.example.com/x")});
  rejected(body("uregtest1nobody", "https://a.example.com/x"), "paymentRequirements.payTo: no provider is registered");
  rejected(body(pay_three, "http://plain.example.com/x"), "paymentPayload.resource.url: must be an https URL");
  auto bad_mime = body(pay_three, "https://a.example.com/x");
  bad_mime["paymentPayload"].as_object()["resource"].as_object()["mimeType"] = "nonsense";
  rejected(bad_mime, "paymentPayload.resource.mimeType");
  auto remote = test::bazaar_get();
  remote["schema"].as_object()["$ref"] = "https://evil.example.com/s";
  rejected(body(pay_three, "https://a.example.com/x", remote), "paymentPayload.extensions.bazaar.schema.$ref");
  auto wrong_terms = body(pay_three, "https://a.example.com/x");
  wrong_terms["paymentRequirements"].as_object()["network"] = "eip155:8453";
  rejected(wrong_terms, "paymentRequirements.network");
  auto bad_method = test::bazaar_get();
  bad_method["info"].as_object()["input"].as_object()["method"] = "TRACE";
  rejected(body(pay_three, "https://a.example.com/x", bad_method), "paymentPayload.extensions.bazaar.info.input.method");
  auto mcp = test::bazaar_mcp();
  mcp["info"].as_object()["input"].as_object().erase("toolName");
  rejected(body(pay_three, "https://a.example.com/mcp", mcp), "toolName");
  rejected(object{{"x402Version", 3}}, "x402Version: must be 1 or 2");
  // A URL at the limit is read; one byte more is refused before it can reach a reason or a log.
  std::string base = "https://a.example.com/";
  rejected(body(pay_one, base + std::string(2048 - base.size(), 'a')), "this provider declares its items and none matches");
  rejected(body(pay_one, base + std::string(2049 - base.size(), 'a')), "paymentPayload.resource.url: may be at most 2048 bytes");
  rejected(object{{"x402Version", 2}, {"paymentPayload", object{}}}, "paymentRequirements: is required");
  auto no_url = body(pay_one, "https://a.example.com/x");
  no_url["paymentPayload"].as_object()["resource"].as_object().erase("url");
  rejected(no_url, "paymentPayload.resource.url: is required");
  CAF_CHECK_EQUAL(engine->context().stats->settles_rejected(), 12u);  // every one is counted
}

CAF_TEST(a full catalog refuses a new payment-only item but never a count) {
  config::catalog_limits limits;
  limits.max_items = 2;
  start(limits);
  declare("p1", pay_one, array{test::valid_item(terms, "https://a.example.com/1"), test::valid_item(terms, "https://a.example.com/2")});
  rejected(body(pay_three, "https://thin.example.com/new"), "the catalog is full");
  CAF_CHECK_EQUAL(count_of("p3"), 0u);
  CAF_CHECK(settle(body(pay_one, "https://a.example.com/1")).state == catalog::settle_outcome::status::success);
  CAF_CHECK_EQUAL(paid(find("p1", "https://a.example.com/1")), 1);
}

CAF_TEST(a settle sent to a stopped engine is answered) {
  engine->stop();
  sched.run();
  std::optional<catalog::settle_outcome> outcome;
  engine->settle(body(pay_one, "https://a.example.com/x"),
                 catalog::settle_completion{[&](catalog::settle_outcome o) { outcome = std::move(o); },
                                            catalog::settle_outcome::rejected(catalog::settle_rejection::unavailable, "the catalog is shutting down")});
  sched.run();
  CAF_REQUIRE(outcome);
  CAF_CHECK(outcome->state == catalog::settle_outcome::status::rejected);
}

CAF_TEST_FIXTURE_SCOPE_END()
