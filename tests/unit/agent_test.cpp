#define CAF_SUITE agent
#include "test.hpp"

#include "fixtures.hpp"

#include "z402/agent/discover.hpp"
#include "z402/agent/origin_binding.hpp"
#include "http/public_address.hpp"
#include "z402/wire/base64.hpp"
#include "z402/wire/payment_required.hpp"
#include "z402/rules/text.hpp"
#include "z402/wire/iso_time.hpp"

using namespace z402;
using boost::json::array;
using boost::json::object;

namespace {


// A fixed catalog in list order: the ranking must find the right one by overlap alone.
using test::listing;

const std::vector<listing> rows = {
    {"URL to markdown", "https://md.example.com/v1/markdown", "Fetches one public web page and returns its main content as clean markdown.", {"web", "markdown"}, "page", {"url"}},
    {"Current weather", "https://wx.example.com/v1/current", "Current conditions for a city: temperature, wind and humidity.", {"weather"}, "call", {"city"}},
    {"Forecast", "https://wx.example.com/v1/forecast", "Daily forecast up to 7 days ahead.", {"forecast"}, "call", {"city", "days"}},
    {"Translator", "https://lingo.example.com/translate", "Translates text between 40 languages.", {"translation"}, "char", {"text", "targetLanguage"}, "POST"},
    {"Screenshot", "https://shots.example.com/capture", "Takes a PNG screenshot of a site at a given viewport.", {"browser"}, "image", {"url", "width"}},
    {"Geocoder", "https://geo.example.com/geocode", "Turns a street address into latitude and longitude.", {"maps"}, "lookup", {"address"}},
    {"Stock quotes", "https://fin.example.com/quote", "Delayed equity prices for a ticker symbol.", {"finance", "stocks"}, "quote", {"symbol"}},
    {"FX rates", "https://fin.example.com/fx", "Exchange rates between currencies, updated hourly.", {"finance", "currency"}, "call", {"base", "quote"}},
    {"OCR", "https://ocr.example.com/read", "Extracts printed text from a scanned image or PDF.", {"ocr", "documents"}, "page", {"file"}, "POST"},
    {"Summariser", "https://sum.example.com/summarize", "Summarises a long article into a few sentences.", {"summary", "nlp"}, "article", {"text"}, "POST"},
    {"Sentiment", "https://nlp.example.com/sentiment", "Scores the sentiment of a review as positive or negative.", {"nlp"}, "call", {"text"}, "POST"},
    {"Email check", "https://mail.example.com/verify", "Verifies that an email address exists and accepts mail.", {"email"}, "address", {"email"}},
    {"Transcribe", "https://audio.example.com/transcribe", "Turns speech in an audio file into text.", {"speech", "audio"}, "minute", {"audioUrl"}, "POST"},
    {"Prime check", "https://math.example.com/primes/:n", "Tells whether a number is prime.", {"math"}, "number", {"n"}},
    {"Flight status", "https://air.example.com/flights", "Live departure and arrival status of a flight.", {"travel"}, "call", {"flightNumber"}},
    {"Domain whois", "https://whois.example.com/lookup", "Registration record of a domain name.", {"dns"}, "lookup", {"domain"}},
    {"QR code", "https://qr.example.com/make", "Renders a QR code image for any text or link.", {"image"}, "image", {"data"}},
    {"Same words A", "https://tie.example.com/a", "Zebra crossing counter.", {}, "call", {}},
    {"Same words B", "https://tie.example.com/b", "Zebra crossing counter.", {}, "call", {}},
};


std::vector<object> catalog_items() {
  std::vector<object> items;
  for (auto& r : rows) items.push_back(test::fields_of(r));
  return items;
}

std::string pick_for(std::string_view intent) {
  auto items = catalog_items();
  auto ranked = agent::rank(items, intent);
  if (!ranked.pick) return "none";
  return std::string{items[*ranked.pick].at("resource").as_string()};
}

constexpr std::int64_t now = 1'780'000'000'000;

object seen(std::int64_t offset_s) {
  return object{{"lastSeen", wire::format_iso_ms(now + offset_s * 1000)}, {"paidCallsToday", 4}};
}

}  // namespace

CAF_TEST(the expected pick for each intent) {
  std::vector<std::pair<const char*, const char*>> expected = {
      {"turn a web page into markdown", "https://md.example.com/v1/markdown"},
      {"what is the temperature in Paris", "https://wx.example.com/v1/current"},
      {"weather for my city", "https://wx.example.com/v1/current"},
      {"forecast for the next days", "https://wx.example.com/v1/forecast"},
      {"translate this text to French", "https://lingo.example.com/translate"},
      {"screenshot of a website", "https://shots.example.com/capture"},
      {"latitude of a street address", "https://geo.example.com/geocode"},
      {"price of a stock ticker symbol", "https://fin.example.com/quote"},
      {"currency exchange rate", "https://fin.example.com/fx"},
      {"read text from a scanned PDF", "https://ocr.example.com/read"},
      {"summarize this long article", "https://sum.example.com/summarize"},
      {"is this review positive or negative", "https://nlp.example.com/sentiment"},
      {"verify an email address", "https://mail.example.com/verify"},
      {"transcribe an audio recording", "https://audio.example.com/transcribe"},
      {"is 97 a prime number", "https://math.example.com/primes/:n"},
      {"status of flight BA117", "https://air.example.com/flights"},
      {"whois for a domain", "https://whois.example.com/lookup"},
      {"make a QR code", "https://qr.example.com/make"},
  };
  for (auto& [intent, url] : expected) {
    CAF_MESSAGE(intent);
    CAF_CHECK_EQUAL(pick_for(intent), url);
  }
}

CAF_TEST(ties keep list order and nothing in common picks none) {
  CAF_CHECK_EQUAL(pick_for("zebra crossing"), "https://tie.example.com/a");
  auto items = catalog_items();
  auto ranked = agent::rank(items, "zebra");
  CAF_REQUIRE_GREATER_OR_EQUAL(ranked.order.size(), 2u);
  CAF_CHECK_EQUAL(ranked.order[0], rows.size() - 2);
  CAF_CHECK_EQUAL(ranked.order[1], rows.size() - 1);
  CAF_CHECK_EQUAL(ranked.order[2], 0u);  // the rest in list order
  CAF_CHECK_EQUAL(pick_for("florbix quenzat"), "none");  // words no listing and no dictionary has
  CAF_CHECK_EQUAL(pick_for("the of and"), "none");  // stopwords only
  auto empty = agent::rank({}, "anything");
  CAF_CHECK(!empty.pick.has_value());
}

CAF_TEST(billing units and parameter names count as words) {
  CAF_CHECK_EQUAL(pick_for("per minute"), "https://audio.example.com/transcribe");
  CAF_CHECK_EQUAL(pick_for("flightNumber"), "https://air.example.com/flights");
}

CAF_TEST(activity uses the catalog limits) {
  auto status = [](std::int64_t offset) { return agent::activity_cell(agent::activity_of(seen(offset), now)); };
  CAF_CHECK_EQUAL(status(-12), "up 12s today 4");
  CAF_CHECK_EQUAL(status(-75), "up 1m today 4");
  CAF_CHECK_EQUAL(status(-76), "late 1m today 4");
  CAF_CHECK_EQUAL(status(-300), "late 5m today 4");
  CAF_CHECK_EQUAL(status(-301), "down 5m today 4");
  CAF_CHECK_EQUAL(status(-3 * 3600), "down 3h today 4");
  CAF_CHECK_EQUAL(status(90), "up 0s today 4");
  CAF_CHECK_EQUAL(status(91), "- today 4");
  // The 30 days when the catalog gives them (a catalog without them: nothing is made up).
  auto with_days = test::fields_of(rows[0]);
  for (auto& [k, v] : seen(-12)) with_days[k] = v;
  with_days["quality"] = object{{"l30DaysTotalCalls", 57}};
  CAF_CHECK_EQUAL(agent::activity_cell(agent::activity_of(with_days, now)), "up 12s today 4 30d 57");
  CAF_CHECK_EQUAL(agent::activity_cell(agent::activity_of(object{}, now)), "- today 0");
  CAF_CHECK_EQUAL(agent::activity_cell(agent::activity_of(object{{"lastSeen", "yesterday"}}, now)), "- today 0");
}

CAF_TEST(nothing a terminal acts on survives) {
  std::string hostile = "a\x1b[31mred\x07\r\nb\x7f\xc2\x9b" "c\xe2\x80\xae" "d\xe2\x81\xa6" "e\xff\xfe" "f\xe2\x80\x8f";
  auto safe = rules::terminal_safe(hostile);
  CAF_CHECK(rules::check_shown_text(safe, "text").has_value());
  CAF_CHECK_EQUAL(safe.find('\x1b'), std::string::npos);
  CAF_CHECK_EQUAL(rules::terminal_safe("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac"), "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac");
  auto item = test::fields_of(rows[0]);
  item["serviceName"] = hostile;
  item["description"] = hostile;
  item["resource"] = hostile;
  auto line = agent::line_of(item, now, 1);
  agent::origin_verdict hostile_origin{false, "manifest", rules::terminal_safe(hostile)};
  for (auto text : {agent::render_text({line}, true, hostile_origin), agent::render_json({line}, true, hostile_origin)}) {
    text.pop_back();  // the final newline is ours
    for (std::size_t at = 0; (at = text.find('\n')) != std::string::npos;) text.erase(at, 1);
    CAF_CHECK(rules::check_shown_text(text, "text").has_value());
  }
}

CAF_TEST(a line shows name method url price unit and activity) {
  auto item = test::fields_of(rows[0]);
  for (auto& [k, v] : seen(-12)) item[k] = v;
  agent::origin_verdict bound{true, "", ""};
  auto text = agent::render_text({agent::line_of(item, now, 2)}, true, bound);
  CAF_CHECK_EQUAL(text,
                  "URL to markdown  GET https://md.example.com/v1/markdown  1000 zat/page (0.00001 ZEC)  up 12s today 4  "
                  "Fetches one public web page and returns its main content as clean markdown.\n"
                  "pick: GET https://md.example.com/v1/markdown  origin-verified\n");
  agent::origin_verdict unbound{false, "manifest-payTo", "the origin names payTo uregtest1b for this resource, not uregtest1a"};
  auto refused = agent::render_text({agent::line_of(item, now, 2)}, true, unbound);
  CAF_CHECK(refused.ends_with("pick: GET https://md.example.com/v1/markdown  not origin-verified (manifest-payTo: the origin names "
                              "payTo uregtest1b for this resource, not uregtest1a)\n"));
  auto none = agent::render_text({agent::line_of(item, now, 0)}, false, unbound);
  CAF_CHECK(none.ends_with("pick: none\n"));
  auto doc = boost::json::parse(agent::render_json({agent::line_of(item, now, 2)}, true, unbound)).as_object();
  auto status = doc.at("resources").at(0).at("activity").at("status").as_string();
  CAF_CHECK_EQUAL(status, "up");
  auto url = doc.at("pick").at("url").as_string();
  CAF_CHECK_EQUAL(url, "https://md.example.com/v1/markdown");
  auto check = doc.at("pick").at("origin").at("check").as_string();
  CAF_CHECK_EQUAL(check, "manifest-payTo");
  auto verified = boost::json::parse(agent::render_json({agent::line_of(item, now, 2)}, true, bound)).at("pick").at("origin");
  CAF_CHECK_EQUAL(boost::json::serialize(verified), R"({"verified":true})");
}

// Origin binding (docs/trust.md, "Origin binding"): the pure parts. The network parts are
// tested against a real HTTPS origin in tests/e2e/trust.test.mjs.

CAF_TEST(a manifest names payTo for a resource by url pattern and method) {
  auto manifest = boost::json::parse(R"({
    "routes": [
      {"method": "GET", "url": "https://api.example.com/v1/primes/:n", "accepts": [{"payTo": "uregtest1a"}]},
      {"method": "POST", "url": "https://api.example.com/v1/wordcount", "accepts": [{"payTo": "uregtest1b"}, {"payTo": ""}]},
      {"url": "https://api.example.com/v1/any/{id}", "accepts": [{"payTo": "uregtest1c"}]}
    ],
    "items": [{"resource": {"url": "https://api.example.com/v1/quote"}, "accepts": [{"payTo": "uregtest1d"}]}]
  })").as_object();
  auto names = [&](std::string_view method, std::string_view url) {
    auto found = agent::manifest_pay_tos(manifest, method, url);
    std::string out = found ? "" : "none";
    if (found)
      for (auto& p : *found) out += (out.empty() ? "" : ",") + p;
    return out;
  };
  CAF_CHECK_EQUAL(names("GET", "https://api.example.com/v1/primes/97"), "uregtest1a");
  CAF_CHECK_EQUAL(names("GET", "https://api.example.com/v1/primes/:n"), "uregtest1a");  // a listed route template
  CAF_CHECK_EQUAL(names("POST", "https://api.example.com/v1/primes/97"), "none");         // another method
  CAF_CHECK_EQUAL(names("GET", "https://api.example.com/v1/primes/97/x"), "none");        // another shape
  CAF_CHECK_EQUAL(names("GET", "https://api.example.com/v1/primes/"), "none");            // an empty segment is no value
  CAF_CHECK_EQUAL(names("POST", "https://api.example.com/v1/wordcount"), "uregtest1b");   // empty payTos left out
  CAF_CHECK_EQUAL(names("DELETE", "https://api.example.com/v1/any/7"), "uregtest1c");     // no method: any
  CAF_CHECK_EQUAL(names("GET", "https://api.example.com/v1/quote"), "uregtest1d");        // a DiscoveryResource list
  CAF_CHECK_EQUAL(names("GET", "https://other.example.com/v1/quote"), "none");            // another origin
  CAF_CHECK_EQUAL(names("GET", "http://api.example.com/v1/quote"), "none");               // another scheme
  CAF_CHECK_EQUAL(names("GET", "https://api.example.com:443/v1/quote"), "uregtest1d");    // the default port is the origin's
  CAF_CHECK_EQUAL(names("GET", "not a url"), "none");
}

CAF_TEST(a resource URL with userinfo or without https is refused before anything is read) {
  agent::origin_policy policy;
  auto userinfo = agent::url_refusal("https://user:pass@api.example.com/v1/quote", policy);
  CAF_REQUIRE(userinfo.has_value());
  CAF_CHECK_EQUAL(userinfo->check, "url");
  CAF_CHECK(userinfo->line().find("userinfo") != std::string::npos);
  CAF_CHECK(userinfo->line().find("pass") == std::string::npos);
  auto plain = agent::url_refusal("http://api.example.com/v1/quote", policy);
  CAF_REQUIRE(plain.has_value());
  CAF_CHECK_EQUAL(plain->check, "url");
  policy.require_https = false;
  CAF_CHECK(!agent::url_refusal("http://api.example.com/v1/quote", policy).has_value());
  CAF_CHECK(!agent::url_refusal("https://api.example.com/v1/quote", agent::origin_policy{}).has_value());
  CAF_CHECK(agent::url_refusal("api.example.com/v1/quote", agent::origin_policy{}).has_value());
}

CAF_TEST(only public addresses are public) {
  // "ADDRESS public" or "ADDRESS not public", so a failure names the address.
  auto seen_as = [](std::string a) { return a + (http::is_public_address(boost::asio::ip::make_address(a)) ? " public" : " not public"); };
  for (auto a : {"8.8.8.8", "1.1.1.1", "93.184.216.34", "2606:4700:4700::1111", "100.63.255.255", "100.128.0.0", "172.32.0.1",
                 "192.169.0.1", "2002:0808:0808::1", "::ffff:8.8.8.8", "64:ff9b::808:808"})
    CAF_CHECK_EQUAL(seen_as(a), std::string{a} + " public");
  for (auto a : {"127.0.0.1", "127.255.255.254", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254",
                 "100.64.0.1", "0.0.0.0", "0.1.2.3", "224.0.0.1", "255.255.255.255", "240.0.0.1", "192.0.2.1", "198.18.0.1",
                 "198.51.100.1", "203.0.113.1", "192.0.0.8", "192.88.99.1", "::", "::1", "fe80::1", "fc00::1", "fd12:3456::1",
                 "ff02::1", "fec0::1", "2001:db8::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "64:ff9b::7f00:1", "2002:7f00:0001::1",
                 "::127.0.0.1"})
    CAF_CHECK_EQUAL(seen_as(a), std::string{a} + " not public");
}

CAF_TEST(a 402 is read from its header or else a v1 body) {
  std::string v2 = R"({"x402Version":2,"accepts":[{"payTo":"uregtest1a","amount":"1"},{"payTo":"uregtest1b"}]})";
  auto from_header = wire::payment_required_of(wire::base64_encode(v2), "ignored");
  CAF_REQUIRE(from_header.has_value());
  CAF_CHECK_EQUAL(from_header->how, "PAYMENT-REQUIRED header (x402 v2)");
  auto pay_tos = wire::pay_tos_of(from_header->required);
  CAF_REQUIRE_EQUAL(pay_tos.size(), 2u);
  CAF_CHECK_EQUAL(pay_tos[1], "uregtest1b");
  // A header that is not base64 JSON is not read around: the body does not stand in for it.
  CAF_CHECK(!wire::payment_required_of(std::string_view{"not base64!"}, v2).has_value());
  auto from_body = wire::payment_required_of(std::nullopt, R"({"x402Version":1,"accepts":[{"payTo":"uregtest1c","maxAmountRequired":"5","resource":"https://a.example.com/x"}]})");
  CAF_REQUIRE(from_body.has_value());
  CAF_CHECK_EQUAL(from_body->how, "JSON body (x402 v1)");
  auto amount = from_body->required.at("accepts").at(0).at("amount").as_string();
  CAF_CHECK_EQUAL(amount, "5");
  auto body_pay_tos = wire::pay_tos_of(from_body->required);
  CAF_CHECK_EQUAL(body_pay_tos, std::vector<std::string>{"uregtest1c"});
  CAF_CHECK(!wire::payment_required_of(std::nullopt, R"({"accepts":[]})").has_value());
  CAF_CHECK(!wire::payment_required_of(std::nullopt, "<html>").has_value());
}
