#define CAF_SUITE settle
#include "engine_fixture.hpp"

#include "z402/catalog/catalog_file.hpp"
#include "catalog/payment_file.hpp"
#include "catalog/replica_actor.hpp"
#include "z402/wire/iso_time.hpp"
#include "z402/wire/json.hpp"

#include <atomic>
#include <deque>
#include <fstream>
#include <functional>
#include <random>
#include <thread>

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

  void start(config::catalog_limits limits, std::filesystem::path file = {}, std::filesystem::path payments_file = {}) {
    start_engine(limits, {}, std::move(file), std::move(payments_file));
    // p1 and p2 declare; p3 only ever gets paid.
    engine->set_payees({{pay_one, "p1"}, {pay_two, "p2"}, {pay_three, "p3"}});
    sched.run();
  }

  void declare(const std::string& provider, const std::string& pay_to, array items) {
    for (auto& i : items) i.as_object()["accepts"].as_array()[0].as_object()["payTo"] = pay_to;
    CAF_REQUIRE(declare_items(provider, pay_to, std::move(items)).state == catalog::write_outcome::status::ok);
  }

  int payments = 0;  // payload nonces made so far

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
                   {"payload", object{{"nonce", ++payments}}}};  // every payment its own
    if (bazaar) payload["extensions"] = object{{"bazaar", *bazaar}};
    return {{"x402Version", 2}, {"paymentPayload", payload}, {"paymentRequirements", requirements(pay_to)}};
  }

  /// The body as a tree, or as its JSON text (the bytes a rail node's /settle request brought).
  template <class Body>
  catalog::settle_outcome settle(const Body& b) {
    std::optional<catalog::settle_outcome> outcome;
    engine->settle(b, catalog::settle_completion{[&](catalog::settle_outcome o) { outcome = std::move(o); },
                                                 catalog::settle_outcome::rejected(catalog::settle_rejection::unavailable, "dropped")});
    sched.run();
    if (!outcome) advance(10ms);
    CAF_REQUIRE(outcome.has_value());
    return *outcome;
  }

  /// Sends `bodies` as one batch, as the HTTP layer does; per event "success" or the reason.
  std::vector<std::string> settle_batch(const std::vector<value>& bodies) {
    catalog::settle_batch events;
    catalog::settle_answers answers;
    auto got = std::make_shared<std::vector<std::string>>(bodies.size());
    for (std::size_t i = 0; i < bodies.size(); ++i) {
      auto event = rules::derive_settlement(bodies[i]);
      CAF_REQUIRE(event.has_value());
      events.push_back(std::move(*event));
      answers.emplace_back([got, i](catalog::settle_outcome o) {
        (*got)[i] = o.state == catalog::settle_outcome::status::success ? "success" : o.reason;
      }, catalog::settle_outcome::rejected(catalog::settle_rejection::unavailable, "dropped"));
    }
    engine->settle(std::move(events), std::move(answers));
    sched.run();
    advance(10ms);
    return *got;
  }

  /// Settles `b` (a tree or its text), checks it is rejected for a reason containing
  /// `reason_part`, and returns the outcome (for its cause).
  template <class Body>
  catalog::settle_outcome rejected(const Body& b, const std::string& reason_part) {
    auto o = settle(b);
    CAF_CHECK(o.state == catalog::settle_outcome::status::rejected);
    if (o.reason.find(reason_part) == std::string::npos)
      CAF_FAIL("reason '" << o.reason << "' does not contain '" << reason_part << "'");
    return o;
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
                    {"paymentPayload", {{"x402Version", 1}, {"scheme", terms.scheme}, {"network", "zcash-regtest"}, {"payload", object{{"nonce", ++payments}}}}},
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
  wall = std::make_shared<manual_wall_clock>(start_ms + 14 * 3'600'000LL - 1000);  // 23:59:59.000
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
  for (int i = 0; i < 1000; ++i)  // 1,000 payments, each its own
    engine->settle(body(pay_one, "https://a.example.com/x"), catalog::settle_completion{[&](catalog::settle_outcome o) {
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
  auto got = settle_batch({body(pay_one, "https://a.example.com/x"), body("uregtest1nobody", "https://a.example.com/x"),
                           body(pay_one, "https://a.example.com/x"), body(pay_three, "https://thin.example.com/x")});
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

// Every place a settle took comes back with its answer, also when the answer is the fallback of
// a completion dropped with the actors: with room for two, five settles sent one after another
// to a stopped engine are each answered, none waits, and none is left holding a place.
CAF_TEST(a settle answered by its fallback gives its place back) {
  max_settles_in_flight = 2;
  start({});
  engine->stop();
  sched.run();
  int answered = 0;
  for (int i = 0; i < 5; ++i) {
    engine->settle(body(pay_one, "https://a.example.com/x"),
                   catalog::settle_completion{[&](catalog::settle_outcome o) {
                                                if (o.cause == catalog::settle_rejection::unavailable) ++answered;
                                              },
                                              catalog::settle_outcome::rejected(catalog::settle_rejection::unavailable, "stopped")});
    sched.run();
    CAF_REQUIRE_EQUAL(engine->settles_in_flight(), 0u);  // else the third would wait for ever
  }
  CAF_CHECK_EQUAL(answered, 5);
}

// A rail node that reports settles faster than the catalog answers them waits: a
// million settles queued without a bound held 760-910 MB. On real threads, with room for one
// settle: A's handler holds the catalog's only thread, so B, sent after A was answered, stays
// unanswered, and C, one past the bound, must wait until B is answered. Every settle here names
// a payee nobody registered, which the catalog answers without counting.
CAF_TEST(a settle past max_settles_in_flight waits until one in flight is answered) {
  caf::actor_system_config cfg;
  catalog::register_types(cfg);
  cfg.set("scheduler.max-threads", 1);
  caf::actor_system real{cfg};
  catalog::engine_options options;
  options.max_settles_in_flight = 1;
  catalog::engine bounded{real, std::move(options)};
  std::atomic<int> answered{0}, unknown_payee{0};  // checked on this thread: the handlers run on CAF's
  std::atomic<bool> a_answered{false}, release_a{false};
  auto send = [&](const std::string& body_text, bool hold) {
    bounded.settle(std::string_view{body_text}, catalog::settle_completion{[&, hold](catalog::settle_outcome o) {
                                                  if (o.cause == catalog::settle_rejection::unknown_payee) ++unknown_payee;
                                                  if (hold) {
                                                    a_answered = true;
                                                    while (!release_a) std::this_thread::yield();
                                                  }
                                                  ++answered;
                                                },
                                                catalog::settle_outcome::rejected(catalog::settle_rejection::unavailable, "stopped")});
  };
  std::vector<std::string> bodies;
  for (int i = 0; i < 3; ++i) bodies.push_back(boost::json::serialize(body("uregtest1nobody", "https://a.example.com/x")));
  send(bodies[0], true);
  while (!a_answered) std::this_thread::yield();
  CAF_CHECK_EQUAL(bounded.settles_in_flight(), 0u);  // A's place came back before its handler ran
  std::atomic<bool> c_sent{false};
  std::thread rail{[&] {
    send(bodies[1], false);  // B: the one place
    send(bodies[2], false);  // C: waits for B's answer
    c_sent = true;
  }};
  // B cannot be answered while A's handler holds the thread: C is still waiting after 200 ms.
  for (int i = 0; i < 200 && !c_sent; ++i) std::this_thread::sleep_for(std::chrono::milliseconds{1});
  CAF_CHECK(!c_sent);
  CAF_CHECK_EQUAL(bounded.settles_in_flight(), 1u);
  release_a = true;
  rail.join();
  while (answered < 3) std::this_thread::yield();
  CAF_CHECK_EQUAL(unknown_payee.load(), 3);
  CAF_CHECK_EQUAL(bounded.settles_in_flight(), 0u);
}

// A settle counts once: the same payment reported again is answered as the first was
// and counts nothing; what makes it the same payment is its paymentPayload, not its bytes.

CAF_TEST(a payment reported again is answered success and not counted again) {
  declare("p1", pay_one, array{test::valid_item(terms, "https://a.example.com/x")});
  auto payment = body(pay_one, "https://a.example.com/x");
  CAF_CHECK(settle(payment).state == catalog::settle_outcome::status::success);
  CAF_CHECK(settle(payment).state == catalog::settle_outcome::status::success);
  CAF_CHECK(settle(payment).state == catalog::settle_outcome::status::success);
  CAF_CHECK_EQUAL(paid(find("p1", "https://a.example.com/x")), 1);
  CAF_CHECK_EQUAL(engine->context().stats->settles_counted.load(), 1u);
  CAF_CHECK_EQUAL(engine->context().stats->settles_repeated.load(), 2u);
  // Another payment for the same item is another count.
  CAF_CHECK(settle(body(pay_one, "https://a.example.com/x")).state == catalog::settle_outcome::status::success);
  CAF_CHECK_EQUAL(paid(find("p1", "https://a.example.com/x")), 2);
}

CAF_TEST(a payment reported twice in one batch counts once and both reports are answered alike) {
  declare("p1", pay_one, array{test::valid_item(terms, "https://a.example.com/x")});
  auto payment = body(pay_one, "https://a.example.com/x");
  auto unknown = body("uregtest1nobody", "https://a.example.com/x");
  auto got = settle_batch({payment, payment, unknown, unknown});
  CAF_CHECK_EQUAL(got[0], "success");
  CAF_CHECK_EQUAL(got[1], "success");
  CAF_CHECK(got[2].find("no provider is registered") != std::string::npos);
  CAF_CHECK_EQUAL(got[3], got[2]);
  CAF_CHECK_EQUAL(paid(find("p1", "https://a.example.com/x")), 1);
  CAF_CHECK_EQUAL(engine->context().stats->settles_counted.load(), 1u);
}

CAF_TEST(the same payload in another key order or spacing is the same payment) {
  declare("p1", pay_one, array{test::valid_item(terms, "https://a.example.com/x")});
  auto payment = body(pay_one, "https://a.example.com/x");
  CAF_REQUIRE(settle(payment).state == catalog::settle_outcome::status::success);
  // The payload's keys reversed, at every level, and the body re-spaced.
  std::function<value(const value&)> reversed = [&](const value& v) -> value {
    if (auto* o = v.if_object()) {
      object out;
      for (auto it = o->end(); it != o->begin();) {
        --it;
        out[it->key()] = reversed(it->value());
      }
      return out;
    }
    return v;
  };
  auto again = payment;
  again["paymentPayload"] = reversed(payment.at("paymentPayload"));
  CAF_REQUIRE(boost::json::serialize(again) != boost::json::serialize(payment));
  auto spaced = boost::json::parse("{ \"x402Version\" : 2 ,\n \"paymentPayload\" : " + boost::json::serialize(again.at("paymentPayload")) +
                                   " , \"paymentRequirements\" : " + boost::json::serialize(payment.at("paymentRequirements")) + " }");
  CAF_CHECK(rules::derive_settlement(spaced)->payment() == rules::derive_settlement(payment)->payment());
  // An embedding caller's tree reaches the catalog as its text, read like a body that came as text.
  auto derived = rules::derive_settlement(payment);
  CAF_REQUIRE(derived.has_value());
  CAF_CHECK_EQUAL(derived->body(), boost::json::serialize(payment));
  CAF_CHECK(settle(spaced).state == catalog::settle_outcome::status::success);
  CAF_CHECK_EQUAL(paid(find("p1", "https://a.example.com/x")), 1);
  // One byte of the payload's content changed is another payment.
  auto other = payment;
  other["paymentPayload"].as_object()["payload"].as_object()["nonce"] = -1;
  CAF_CHECK(!(rules::derive_settlement(other)->payment() == rules::derive_settlement(payment)->payment()));
}

CAF_TEST(a settle body given as text counts as its tree does and bad text is rejected at once) {
  declare("p1", pay_one, array{test::valid_item(terms, "https://a.example.com/x")});
  auto payment = body(pay_one, "https://a.example.com/x");
  auto text = boost::json::serialize(payment);
  CAF_REQUIRE(settle(std::string_view{text}).state == catalog::settle_outcome::status::success);
  CAF_CHECK_EQUAL(paid(find("p1", "https://a.example.com/x")), 1);
  // Read without a tree, the text kept as it came, and the same payment as its tree.
  auto parsed = rules::parse_settlement(text);
  CAF_REQUIRE(parsed.has_value());
  CAF_CHECK_EQUAL(parsed->body(), text);
  CAF_CHECK(parsed->payment() == rules::derive_settlement(payment)->payment());
  CAF_CHECK(settle(payment).state == catalog::settle_outcome::status::success);
  CAF_CHECK_EQUAL(paid(find("p1", "https://a.example.com/x")), 1);
  // A duplicate key (two readers could disagree on it), text that is not JSON, and a body one
  // level deeper than max_settlement_depth: each rejected with its reason, nothing counted.
  auto rejected_text = [&](const std::string& t, const std::string& reason_part) {
    CAF_CHECK(rejected(std::string_view{t}, reason_part).cause == catalog::settle_rejection::invalid_body);
  };
  auto fresh = boost::json::serialize(body(pay_one, "https://a.example.com/x"));
  rejected_text(R"({"x402Version":2,"x402Version":2,)" + fresh.substr(1), "the body repeats the key \"x402Version\" in one object");
  rejected_text(fresh.substr(0, fresh.size() - 1), "the body is not valid JSON");
  // root > paymentPayload > payload > `levels` arrays, the innermost in "nonce".
  auto nested = [&](std::size_t levels) {
    auto b = body(pay_one, "https://a.example.com/x");
    auto t = boost::json::serialize(b);
    auto at = t.find("\"payload\":{") + 11;
    return t.substr(0, at) + "\"deep\":" + std::string(levels, '[') + std::string(levels, ']') + "," + t.substr(at);
  };
  CAF_CHECK_EQUAL(wire::json_depth(*wire::parse_strict(nested(rules::max_settlement_depth - 3), 2 * rules::max_settlement_depth)),
                  rules::max_settlement_depth);
  rejected_text(nested(rules::max_settlement_depth - 2), "nests deeper than 64 levels");
  CAF_CHECK_EQUAL(paid(find("p1", "https://a.example.com/x")), 1);
  CAF_CHECK(settle(std::string_view{nested(rules::max_settlement_depth - 3)}).state == catalog::settle_outcome::status::success);
  CAF_CHECK_EQUAL(paid(find("p1", "https://a.example.com/x")), 2);
  CAF_CHECK_EQUAL(engine->context().stats->settles_rejected(), 3u);
}

CAF_TEST(a settlement keeps its key and payee and body in one text and its item is split from the key) {
  auto mcp = test::bazaar_mcp();
  auto text = boost::json::serialize(body(pay_one, "HTTPS://A.example.com/mcp/?x=1", mcp));
  auto parsed = rules::parse_settlement(text);
  CAF_REQUIRE(parsed.has_value());
  auto identity = parsed->identity();
  CAF_CHECK_EQUAL(identity.type, "mcp");
  CAF_CHECK_EQUAL(identity.resource, "https://a.example.com/mcp");
  CAF_CHECK_EQUAL(identity.selector, mcp.at("info").at("input").at("toolName").as_string());
  CAF_CHECK_EQUAL(parsed->key(), identity.key());
  CAF_CHECK_EQUAL(parsed->pay_to(), pay_one);
  CAF_CHECK_EQUAL(parsed->body(), text);
  // A copy shares the text; the text outlives the settlement it was read with.
  auto copy = *parsed;
  CAF_CHECK(copy.body().data() == parsed->body().data());
  parsed = rules::settlement{};
  CAF_CHECK_EQUAL(copy.body(), text);
  CAF_CHECK_EQUAL(copy.key(), identity.key());
  // Made from its parts, as a test or an embedder would: the same views.
  rules::settlement made{identity, pay_one, text, copy.payment()};
  CAF_CHECK_EQUAL(made.key(), copy.key());
  CAF_CHECK_EQUAL(made.pay_to(), copy.pay_to());
  CAF_CHECK_EQUAL(made.body(), copy.body());
  // One made by default holds nothing, and lists nothing.
  rules::settlement empty;
  CAF_CHECK(empty.key().empty() && empty.pay_to().empty() && empty.body().empty());
  CAF_CHECK(empty.identity().resource.empty());
  auto refused = rules::payment_only_fields(empty, terms, false);
  CAF_REQUIRE(!refused);
  CAF_CHECK_EQUAL(refused.error().reason, "the body must be a JSON object");
}

CAF_TEST(a rejected payment is not remembered and is answered as the first each time) {
  auto orphan = body("uregtest1nobody", "https://a.example.com/x");
  rejected(orphan, "no provider is registered");
  rejected(orphan, "no provider is registered");
  CAF_CHECK_EQUAL(engine->context().stats->settles_repeated.load(), 0u);
  // Once its provider exists, the same payment counts: it never counted before.
  engine->set_payees({{pay_one, "p1"}, {"uregtest1nobody", "p4"}});
  declare("p4", "uregtest1nobody", array{test::valid_item(terms, "https://a.example.com/x")});
  CAF_CHECK(settle(orphan).state == catalog::settle_outcome::status::success);
  CAF_CHECK_EQUAL(paid(find("p4", "https://a.example.com/x")), 1);
}

CAF_TEST(a payment is remembered for 24 hours and no longer) {
  declare("p1", pay_one, array{test::valid_item(terms, "https://a.example.com/x")});
  auto payment = body(pay_one, "https://a.example.com/x");
  CAF_REQUIRE(settle(payment).state == catalog::settle_outcome::status::success);
  advance(std::chrono::hours{24} - 100ms);  // at the limit: still the same payment
  declare("p1", pay_one, array{test::valid_item(terms, "https://a.example.com/x")});  // a heartbeat keeps the item
  settle(payment);
  CAF_CHECK_EQUAL(engine->context().stats->settles_counted.load(), 1u);
  advance(200ms);  // past it: forgotten, counted again
  CAF_CHECK(settle(payment).state == catalog::settle_outcome::status::success);
  CAF_CHECK_EQUAL(engine->context().stats->settles_counted.load(), 2u);
}

CAF_TEST(at most max_remembered_payments are remembered and the oldest is forgotten first) {
  config::catalog_limits limits;
  limits.max_remembered_payments = 3;
  start(limits);
  declare("p1", pay_one, array{test::valid_item(terms, "https://a.example.com/x")});
  std::vector<value> payments;
  for (int i = 0; i < 4; ++i) payments.push_back(body(pay_one, "https://a.example.com/x"));
  for (int i = 0; i < 3; ++i) settle(payments[i]);
  // At the limit: all three are remembered.
  for (int i = 0; i < 3; ++i) settle(payments[i]);
  CAF_CHECK_EQUAL(engine->context().stats->settles_counted.load(), 3u);
  // One past it: the fourth pushes out the first, which then counts again.
  settle(payments[3]);
  settle(payments[3]);
  settle(payments[2]);
  CAF_CHECK_EQUAL(engine->context().stats->settles_counted.load(), 4u);
  settle(payments[0]);
  CAF_CHECK_EQUAL(engine->context().stats->settles_counted.load(), 5u);
}

CAF_TEST(the last 30 days - midnight splits them and the oldest leaves the sum and a stop of 3 days shows as 3 zeros) {
  test::temp_dir dir{"z402-days"};
  auto catalog_file = dir.path / "catalog.json";
  start({}, catalog_file);
  const std::string url = "https://a.example.com/days";
  auto heartbeat = [&] { declare("p1", pay_one, array{test::valid_item(terms, url)}); };
  heartbeat();
  auto served_item = [&] { return boost::json::parse(find("p1", url)->json()).as_object(); };
  // Values, not members of a temporary: CAF's checks keep references.
  auto total = [&] { return served_item().at("quality").at("l30DaysTotalCalls").as_int64(); };
  auto last_called_at = [&] { return std::string{served_item().at("quality").at("lastCalledAt").as_string()}; };
  auto today_calls = [&] { return served_item().at("paidCallsToday").as_int64(); };
  // Moves the clock to `ms` into UTC day `day`.
  auto at = [&](std::int64_t day, std::int64_t ms) { advance(std::chrono::milliseconds{day * wire::ms_per_day + ms - wall->now_ms()}); };
  // A settle is counted when its batch reaches the provider: within 10 ms of its arrival here.
  const auto first_day = wire::utc_day(wall->now_ms());
  at(first_day, wire::ms_per_day - 11);
  CAF_REQUIRE_EQUAL(settle(body(pay_one, url)).state, catalog::settle_outcome::status::success);
  CAF_REQUIRE_LESS_OR_EQUAL(wall->now_ms(), (first_day + 1) * wire::ms_per_day - 1);  // counted by 23:59:59.999
  at(first_day + 1, 0);
  CAF_CHECK_EQUAL(wire::format_iso_ms(wall->now_ms()).substr(11), "00:00:00.000Z");
  CAF_REQUIRE_EQUAL(settle(body(pay_one, url)).state, catalog::settle_outcome::status::success);
  advance(300ms);  // the counts' publication interval
  auto usage = find("p1", url)->record().usage;
  CAF_CHECK_EQUAL(usage.on(first_day), 1u);
  CAF_CHECK_EQUAL(usage.on(first_day + 1), 1u);
  CAF_CHECK_EQUAL(today_calls(), 1);
  CAF_CHECK_EQUAL(total(), 2);
  auto last_called = last_called_at();
  CAF_CHECK_EQUAL(last_called.substr(0, 10), wire::format_iso_ms((first_day + 1) * wire::ms_per_day).substr(0, 10));
  // The first day is in the 30 that end 29 days later, and not in those that end 30 days later:
  // the midnight between re-renders the item with no traffic (a heartbeat a day keeps it listed).
  for (int day = 2; day <= 29; ++day) at(first_day + day, 3'600'000), heartbeat();
  at(first_day + 29, wire::ms_per_day - 1);
  CAF_CHECK_EQUAL(total(), 2);
  at(first_day + 30, 0);
  CAF_CHECK_EQUAL(total(), 1);
  CAF_CHECK_EQUAL(last_called_at(), last_called);
  CAF_CHECK_EQUAL(today_calls(), 0);
  // Stopped for 3 days: the restart shows them as days with no calls, and counts on after them.
  CAF_REQUIRE_EQUAL(settle(body(pay_one, url)).state, catalog::settle_outcome::status::success);
  advance(2s);  // saved within PERSISTENCE's interval
  engine.reset();
  sched.run();
  advance(72h);
  auto loaded = catalog::load_catalog(catalog_file, wall->now_ms());
  CAF_REQUIRE(loaded.state == catalog::catalog_load::status::loaded);
  start_engine({}, loaded.records, catalog_file);
  engine->set_payees({{pay_one, "p1"}});
  sched.run();
  heartbeat();
  auto today = wire::utc_day(wall->now_ms());
  auto by_day = find("p1", url)->record().usage.by_day(today);
  CAF_CHECK_EQUAL(by_day[29], 0u);  // today
  CAF_CHECK_EQUAL(by_day[28], 0u);
  CAF_CHECK_EQUAL(by_day[27], 0u);
  CAF_CHECK_EQUAL(by_day[26], 1u);  // the day of the stop
  CAF_CHECK_EQUAL(by_day[0], 0u);
  CAF_CHECK_EQUAL(total(), 1);  // the second day's call has left the window too
  CAF_REQUIRE_EQUAL(settle(body(pay_one, url)).state, catalog::settle_outcome::status::success);
  advance(300ms);
  CAF_CHECK_EQUAL(total(), 2);
}

CAF_TEST(a follower away across midnight agrees with the primary byte for byte once it is back) {
  // The follower holds the catalog of before midnight (what its file saved, or what it held when
  // its link went down); the primary re-renders its items at midnight and counts on the new day;
  // reached again, the FEED sends the follower what changed since its version, and it serves the
  // primary's bytes: paidCallsToday, quality and the day ring of the new day.
  const std::string url = "https://a.example.com/away", quiet = "https://a.example.com/quiet";
  auto feed = engine->feed();  // a primary publishes its FEED at start
  sched.run();
  declare("p1", pay_one, array{test::valid_item(terms, url), test::valid_item(terms, quiet)});
  auto at = [&](std::int64_t day, std::int64_t ms) { advance(std::chrono::milliseconds{day * wire::ms_per_day + ms - wall->now_ms()}); };
  const auto first_day = wire::utc_day(wall->now_ms());
  at(first_day, wire::ms_per_day - 1000);
  CAF_REQUIRE_EQUAL(settle(body(pay_one, url)).state, catalog::settle_outcome::status::success);
  CAF_REQUIRE_EQUAL(settle(body(pay_one, url)).state, catalog::settle_outcome::status::success);
  auto follower_store = std::make_shared<catalog::snapshot_store>();
  follower_store->publish(snap());
  const auto held = snap()->version;
  at(first_day + 1, 1000);
  CAF_REQUIRE_EQUAL(settle(body(pay_one, url)).state, catalog::settle_outcome::status::success);
  advance(10ms);
  CAF_REQUIRE_GREATER(snap()->version, held);
  // The follower: a run of its own, and a primary it cannot reach by itself (not loopback, no
  // TLS here), so it follows the FEED it is handed, as when its link is made again.
  catalog::engine_context follower_ctx;
  follower_ctx.clock = wall;
  follower_ctx.epoch = engine->context().epoch + 1;
  auto replica = sys.spawn(catalog::replica, follower_ctx, follower_store, catalog::persistence_actor{},
                           config::listen_address{"192.0.2.1", 1}, std::function<void(const std::string&)>{},
                           std::shared_ptr<catalog::signed_store>{});
  sched.run();
  caf::anon_send(replica, catalog::atom::connected::value, feed);
  sched.run();
  advance(10ms);
  auto primary = snap(), follower = follower_store->load();
  CAF_CHECK_EQUAL(follower->epoch, primary->epoch);
  CAF_CHECK_EQUAL(follower->version, primary->version);
  CAF_CHECK_EQUAL(follower_ctx.stats->copies_taken.load(), 0u);  // the changes since its version, not a copy
  CAF_REQUIRE_EQUAL(follower->items.size(), primary->items.size());
  for (std::size_t i = 0; i < primary->items.size(); ++i) {
    CAF_CHECK_EQUAL(follower->items[i]->json(), primary->items[i]->json());
    CAF_CHECK_EQUAL(follower->items[i]->rendered_day(), primary->items[i]->rendered_day());
    CAF_CHECK(follower->items[i]->record().usage == primary->items[i]->record().usage);
  }
  // The paid route re-rendered for the new day; the quiet one, whose bytes the day did not
  // change, kept the rendering it had.
  CAF_CHECK_EQUAL(follower->items[0]->rendered_day(), first_day + 1);
  CAF_CHECK_EQUAL(follower->items[1]->rendered_day(), first_day);
  // Parsed into locals: CAF_CHECK_EQUAL holds references to its operands, so a member of a
  // temporary tree would be read after the tree is gone.
  const auto paid = boost::json::parse(follower->items[0]->json()).as_object();
  const auto quiet_item = boost::json::parse(follower->items[1]->json()).as_object();
  CAF_CHECK_EQUAL(paid.at("paidCallsToday").as_int64(), 1);
  CAF_CHECK_EQUAL(paid.at("quality").at("l30DaysTotalCalls").as_int64(), 3);
  CAF_CHECK_EQUAL(quiet_item.at("paidCallsToday").as_int64(), 0);
  self->send_exit(replica, caf::exit_reason::user_shutdown);
  sched.run();
}

CAF_TEST(a follower restarted with its clock on another day than its primary serves the bytes the primary served for that version) {
  // Its catalog file names the primary's version and the day the primary rendered its items for;
  // restarted, the follower renders what it loaded for that day, never for its own clock's: a
  // clock a day ahead (or behind) must not change paidCallsToday or the 30 days under an ETag
  // the primary served with other numbers.
  const std::string url = "https://a.example.com/skew", quiet = "https://a.example.com/quiet";
  declare("p1", pay_one, array{test::valid_item(terms, url), test::valid_item(terms, quiet)});
  const auto day = wire::utc_day(wall->now_ms());
  advance(std::chrono::milliseconds{(day + 1) * wire::ms_per_day - 1000 - wall->now_ms()});
  CAF_REQUIRE_EQUAL(settle(body(pay_one, url)).state, catalog::settle_outcome::status::success);
  CAF_REQUIRE_EQUAL(settle(body(pay_one, url)).state, catalog::settle_outcome::status::success);
  advance(10ms);
  auto primary = snap();
  CAF_REQUIRE(catalog::rendered_day_of(*primary) == day);
  for (auto ahead : {std::int64_t{1}, std::int64_t{-1}}) {
    catalog::engine_options options;
    options.clock = std::make_shared<manual_wall_clock>(wall->now_ms() + ahead * wire::ms_per_day);
    for (auto& it : primary->items) options.initial.push_back(it->record());
    options.initial_epoch = primary->epoch;
    options.initial_version = primary->version;
    options.initial_day = *catalog::rendered_day_of(*primary);
    options.follow = config::listen_address{"192.0.2.1", 1};  // never reached: what it serves is what it loaded
    options.persistence_thread = false;
    auto follower = std::make_unique<catalog::engine>(sys, std::move(options));
    sched.run();
    auto served = follower->snapshots().load();
    CAF_CHECK_EQUAL(served->epoch, primary->epoch);
    CAF_CHECK_EQUAL(served->version, primary->version);
    CAF_REQUIRE_EQUAL(served->items.size(), primary->items.size());
    for (std::size_t i = 0; i < primary->items.size(); ++i) CAF_CHECK_EQUAL(served->items[i]->json(), primary->items[i]->json());
    CAF_CHECK(catalog::rendered_day_of(*served) == day);
    follower.reset();
    sched.run();
  }
}

CAF_TEST(a clock that went back across midnight shows the calls counted on the newest day) {
  // A paid call just after midnight, then the clock set back before it and another call: both
  // count on the newest day (the day ring never counts backwards), and the item shows them, as of
  // that day, rather than the earlier day's none until the clock passes midnight again.
  const std::string url = "https://a.example.com/back";
  declare("p1", pay_one, array{test::valid_item(terms, url)});
  const auto day = wire::utc_day(wall->now_ms());
  advance(std::chrono::milliseconds{(day + 1) * wire::ms_per_day + 1000 - wall->now_ms()});
  CAF_REQUIRE_EQUAL(settle(body(pay_one, url)).state, catalog::settle_outcome::status::success);
  wall->advance(-std::chrono::milliseconds{5000});  // the wall clock alone: NTP stepped it back
  CAF_REQUIRE_EQUAL(wire::utc_day(wall->now_ms()), day);
  CAF_REQUIRE_EQUAL(settle(body(pay_one, url)).state, catalog::settle_outcome::status::success);
  advance(10ms);
  const auto shown = boost::json::parse(snap()->items[0]->json()).as_object();
  CAF_CHECK_EQUAL(shown.at("paidCallsToday").as_int64(), 2);
  CAF_CHECK_EQUAL(shown.at("quality").at("l30DaysTotalCalls").as_int64(), 2);
  CAF_CHECK_EQUAL(snap()->items[0]->rendered_day(), day + 1);
}

CAF_TEST(a snapshot renders as it is for one day unless a clock that went back left counts on an earlier one) {
  // The day a follower's file records (and a restart renders for) is the latest its items were
  // rendered for, as long as each renders the same for it; a primary whose clock went back across
  // midnight renders new counts for the earlier day, and then no one day will do: a copy.
  declare("p1", pay_one, array{test::valid_item(terms, "https://a.example.com/1"), test::valid_item(terms, "https://a.example.com/2")});
  const auto day = wire::utc_day(wall->now_ms());
  auto rendered = [&](std::size_t i, std::optional<std::int64_t> paid_on, std::int64_t for_day) {
    auto r = snap()->items[i]->record();
    if (paid_on) r.usage.count(*paid_on, *paid_on * wire::ms_per_day + 1);
    return catalog::make_item(std::move(r), for_day);
  };
  auto day_of = [&](catalog::item_ptr a, catalog::item_ptr b) {
    return catalog::rendered_day_of(*catalog::make_snapshot(1, 1, catalog::listing_items{a, b}, 0, 1, wall->now_ms()));
  };
  // One paid on the next day and rendered for it; one never paid, rendered for the day before.
  CAF_CHECK(day_of(rendered(0, day + 1, day + 1), rendered(1, std::nullopt, day)) == day + 1);
  // The second was paid on the earlier day, for which it was rendered: it reads otherwise on the next.
  CAF_CHECK(day_of(rendered(0, day + 1, day + 1), rendered(1, day, day)) == std::nullopt);
  CAF_CHECK(catalog::rendered_day_of(*catalog::make_snapshot(1, 1, {}, 0, 0, wall->now_ms())) == day);
}

CAF_TEST(a day ring counts each day once in its window and never loses a call to a clock that went back) {
  catalog::daily_counts u;
  CAF_CHECK_EQUAL(u.last_30_days(20000), 0u);
  CAF_CHECK_EQUAL(u.last_called_ms(), -1);
  u.count(20000, 5);
  u.count(20000, 7);
  u.count(20010, 9);
  CAF_CHECK_EQUAL(u.on(20000), 2u);
  CAF_CHECK_EQUAL(u.on(20010), 1u);
  CAF_CHECK_EQUAL(u.on(20011), 0u);  // after the newest day
  CAF_CHECK_EQUAL(u.last_30_days(20029), 3u);  // 20000 is the window's first day
  CAF_CHECK_EQUAL(u.last_30_days(20030), 1u);  // and then it is not
  u.count(20005, 3);  // a clock that went back counts on the newest day
  CAF_CHECK_EQUAL(u.on(20010), 2u);
  CAF_CHECK_EQUAL(u.last_called_ms(), 9);  // the latest time stays
  u.count(20100, 11);  // more than 30 days on: nothing older is left
  CAF_CHECK_EQUAL(u.last_30_days(20100), 1u);
  CAF_CHECK_EQUAL(u.on(20010), 0u);
  auto ring = u.by_day(20100);
  CAF_CHECK_EQUAL(ring.back(), 1u);
  CAF_CHECK(catalog::daily_counts(20100, ring, 11) == u);  // what is saved is all of it
}

CAF_TEST(remembered payments survive a restart through the payments file) {
  test::temp_dir dir{"z402-payments"};
  auto catalog_file = dir.path / "catalog.json", payments_file = dir.path / "payments.bin";
  start({}, catalog_file, payments_file);
  declare("p1", pay_one, array{test::valid_item(terms, "https://a.example.com/x")});
  auto first = body(pay_one, "https://a.example.com/x"), second = body(pay_one, "https://a.example.com/x");
  settle(first);
  settle(second);
  advance(2s);  // PERSISTENCE saves within its interval (1 s)
  CAF_CHECK_EQUAL(std::filesystem::file_size(payments_file), catalog::payment_file_header_bytes + 2 * catalog::payment_record_bytes);
  // A torn append (a crash mid-record) leaves a partial record: the load ignores it, the next
  // append cuts it off.
  { std::ofstream{payments_file, std::ios::app | std::ios::binary} << "torn"; }
  auto loaded = catalog::load_catalog(catalog_file, wall->now_ms());
  start_engine({}, loaded.records, catalog_file, payments_file);
  engine->set_payees({{pay_one, "p1"}});
  sched.run();
  settle(first);
  settle(second);
  CAF_CHECK_EQUAL(engine->context().stats->settles_counted.load(), 0u);
  CAF_CHECK_EQUAL(engine->context().stats->settles_repeated.load(), 2u);
  CAF_CHECK_EQUAL(paid(find("p1", "https://a.example.com/x")), 2);
  settle(body(pay_one, "https://a.example.com/x"));
  advance(2s);  // PERSISTENCE saves within its interval (1 s)
  CAF_CHECK_EQUAL(std::filesystem::file_size(payments_file), catalog::payment_file_header_bytes + 3 * catalog::payment_record_bytes);
  auto kept = catalog::load_payments(payments_file, wall->now_ms(), 86400000, 1000);
  CAF_CHECK(kept.state == catalog::payments_load::status::loaded);
  CAF_CHECK_EQUAL(kept.records.size(), 3u);
  CAF_CHECK(kept.records[0].id == rules::derive_settlement(first)->payment());
}

CAF_TEST(a payments file that cannot be appended fails the save and no count reaches disk before its payment) {
  test::temp_dir dir{"z402-payments"};
  auto catalog_file = dir.path / "catalog.json", payments_dir = dir.path / "later";
  start({}, catalog_file, payments_dir / "payments.bin");
  declare("p1", pay_one, array{test::valid_item(terms, "https://a.example.com/x")});
  advance(2s);
  CAF_REQUIRE(std::filesystem::exists(catalog_file));  // no payments yet: the catalog saves
  auto before = catalog::load_catalog(catalog_file, wall->now_ms());
  settle(body(pay_one, "https://a.example.com/x"));
  advance(2s);
  auto& stats = *engine->context().stats;
  CAF_CHECK_GREATER(stats.save_failures.load(), 0u);
  CAF_CHECK_NOT_EQUAL(stats.save_failing_since_ms.load(), 0);
  CAF_CHECK((*stats.last_save_error.load()).find("payments.bin") != std::string::npos);
  // The catalog file still holds no count: its payment is not on disk.
  auto now = catalog::load_catalog(catalog_file, wall->now_ms());
  CAF_REQUIRE_EQUAL(now.records.size(), 1u);
  CAF_CHECK(now.records[0].usage == before.records[0].usage);
  // The directory comes back: the retry (at most 5 s apart) saves both, in order.
  std::filesystem::create_directories(payments_dir);
  advance(6s);
  CAF_CHECK_EQUAL(stats.save_failing_since_ms.load(), 0);
  CAF_CHECK_EQUAL(std::filesystem::file_size(payments_dir / "payments.bin"), catalog::payment_file_header_bytes + catalog::payment_record_bytes);
  auto reloaded = catalog::load_catalog(catalog_file, wall->now_ms());
  CAF_REQUIRE_EQUAL(reloaded.records.size(), 1u);
  CAF_CHECK_EQUAL(test::newest_calls(reloaded.records[0]), 1u);
}

CAF_TEST(a payments file without its header is moved aside and nothing is remembered) {
  test::temp_dir dir{"z402-payments"};
  auto payments_file = dir.path / "payments.bin";
  { std::ofstream{payments_file, std::ios::binary} << "not a payments file at all, 24 bytes each"; }
  auto loaded = catalog::load_payments(payments_file, start_ms, 86400000, 1000);
  CAF_CHECK(loaded.state == catalog::payments_load::status::corrupt);
  CAF_CHECK(loaded.records.empty());
  CAF_CHECK(!std::filesystem::exists(payments_file));
  CAF_CHECK(std::filesystem::exists(dir.path / ("payments.bin.corrupt-" + std::to_string(start_ms))));
  CAF_CHECK(catalog::load_payments(payments_file, start_ms, 86400000, 1000).state == catalog::payments_load::status::missing);
}

CAF_TEST(a payments file past twice the capacity is compacted to what a load keeps) {
  test::temp_dir dir{"z402-payments"};
  config::catalog_limits limits;
  limits.max_remembered_payments = 2;
  auto payments_file = dir.path / "payments.bin";
  start(limits, dir.path / "catalog.json", payments_file);
  declare("p1", pay_one, array{test::valid_item(terms, "https://a.example.com/x")});
  std::vector<value> payments;
  for (int i = 0; i < 5; ++i) {
    payments.push_back(body(pay_one, "https://a.example.com/x"));
    settle(payments.back());
    advance(2s);  // PERSISTENCE saves within its interval (1 s)
  }
  // 4 records is twice the capacity, 5 is past it: rewritten with the newest 2.
  CAF_CHECK_EQUAL(std::filesystem::file_size(payments_file), catalog::payment_file_header_bytes + 2 * catalog::payment_record_bytes);
  auto kept = catalog::load_payments(payments_file, wall->now_ms(), 86400000, 1000);
  CAF_REQUIRE_EQUAL(kept.records.size(), 2u);
  CAF_CHECK(kept.records[1].id == rules::derive_settlement(payments[4])->payment());
}

CAF_TEST_FIXTURE_SCOPE_END()

// The ledger against a plain model (a deque in arrival order): the same answers for every lookup
// over inserts, aging out and evictions, with ids that share their low bits, so probe runs are
// long and every deletion shifts entries back, and half of them their high bits too, so a slot's
// tag often matches an id it does not hold. 512 fills its ring (a position + 1 of 512 takes the
// slot's tenth bit, the tag the rest); 2^32 - 2 leaves no bits for a tag.
CAF_TEST(the payment ledger answers as a plain list of the newest payments within the window) {
  for (std::size_t capacity : {1u, 7u, 64u, 512u, 1000u, 0xFFFFFFFEu}) {
    catalog::payment_ledger ledger{capacity, 1000};
    std::deque<catalog::payment_record> model;
    std::mt19937_64 random{capacity};
    std::int64_t now = 0;
    std::vector<rules::payment_id> ids;
    for (int i = 0; i < 20000; ++i) {
      now += static_cast<std::int64_t>(random() % 3);
      while (!model.empty() && model.front().at_ms <= now - 1000) model.pop_front();
      auto pick = random() % 4;
      rules::payment_id id = pick == 0 && !ids.empty() ? ids[random() % ids.size()]
                                                       : rules::payment_id{random() >> (random() % 2 ? 0 : 40), (random() % 8) << 20 | (random() % 4)};
      bool expected = std::any_of(model.begin(), model.end(), [&](auto& r) { return r.id == id; });
      if (ledger.contains(id, now) != expected) CAF_FAIL("capacity " << capacity << ", step " << i << ": the ledger and the model disagree");
      if (!expected && pick != 3) {
        ledger.insert({id, now});
        model.push_back({id, now});
        if (model.size() > capacity) model.pop_front();
        ids.push_back(id);
      }
      CAF_REQUIRE_EQUAL(ledger.size(), model.size());
    }
  }
}
