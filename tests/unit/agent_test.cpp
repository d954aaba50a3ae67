#define CAF_SUITE agent
#include "test.hpp"

#include "fixtures.hpp"

#include "z402/agent/discover.hpp"
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
  for (auto text : {agent::render_text({line}, true), agent::render_json({line}, true)}) {
    text.pop_back();  // the final newline is ours
    for (std::size_t at = 0; (at = text.find('\n')) != std::string::npos;) text.erase(at, 1);
    CAF_CHECK(rules::check_shown_text(text, "text").has_value());
  }
}

CAF_TEST(a line shows name method url price unit and activity) {
  auto item = test::fields_of(rows[0]);
  for (auto& [k, v] : seen(-12)) item[k] = v;
  auto text = agent::render_text({agent::line_of(item, now, 2)}, true);
  CAF_CHECK_EQUAL(text,
                  "URL to markdown  GET https://md.example.com/v1/markdown  1000 zat/page (0.00001 ZEC)  up 12s today 4  "
                  "Fetches one public web page and returns its main content as clean markdown.\n"
                  "pick: GET https://md.example.com/v1/markdown\n");
  auto none = agent::render_text({agent::line_of(item, now, 0)}, false);
  CAF_CHECK(none.ends_with("pick: none\n"));
  auto doc = boost::json::parse(agent::render_json({agent::line_of(item, now, 2)}, true)).as_object();
  auto status = doc.at("resources").at(0).at("activity").at("status").as_string();
  CAF_CHECK_EQUAL(status, "up");
  auto url = doc.at("pick").at("url").as_string();
  CAF_CHECK_EQUAL(url, "https://md.example.com/v1/markdown");
}
