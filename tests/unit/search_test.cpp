#define CAF_SUITE search
#include "test.hpp"

#include "fixtures.hpp"
#include "z402/agent/discover.hpp"
#include "z402/catalog/snapshot.hpp"
#include "routes/resource_query.hpp"
#include "routes/search_query.hpp"
#include "z402/search/ranking.hpp"
#include "z402/search/term_map.hpp"
#include "search/explain.hpp"
#include "search/lexicon.hpp"
#include "search/tokenizer.hpp"
#include "search/words.hpp"

#include <boost/json/parse.hpp>

#include <cmath>
#include <cstring>
#include <set>

using namespace z402;
using boost::json::array;
using boost::json::object;

namespace {


// A realistic catalog: several services per kind, different wording, and keyword stuffers.
using test::listing;
using test::fields_of;

const std::vector<listing> catalog_rows = {
    {"Current weather", "https://wx.example.com/v1/current", "Current weather conditions for a city: temperature, wind, humidity and sky.", {"weather"}, "call", {"city"}},
    {"Weather forecast", "https://wx.example.com/v1/forecast", "Daily weather forecast for up to 7 days ahead for any location.", {"weather", "forecast"}, "call", {"city", "days"}},
    {"Historical weather", "https://climate.example.org/history", "Observations of past days for a station and date range, back to 1950, as CSV or JSON.", {"weather", "history"}, "call", {"station", "date"}},
    {"Marine conditions", "https://sea.example.net/marine", "Wave height, sea temperature and tides for coastal points.", {"ocean"}, "call", {"lat", "lon"}},
    {"URL to markdown", "https://markdown.example.com/v1/markdown", "Fetches one public web page and returns its main content as clean markdown.", {"web", "markdown", "scrape"}, "page", {"url"}},
    {"HTML cleaner", "https://tidy.example.com/clean", "Strips scripts, ads and navigation from raw HTML you send.", {"html"}, "call", {"html"}, "POST"},
    {"Site crawler", "https://crawl.example.io/crawl", "Crawls a whole website and lists its pages and links.", {"crawl", "links"}, "site", {"startUrl", "maxPages"}},
    {"Screenshot", "https://shots.example.com/capture", "Takes a PNG screenshot of a web page at a given viewport.", {"screenshot", "browser"}, "image", {"url", "width"}},
    {"Text translation", "https://lingo.example.com/translate", "Translates text between 40 languages, for example English to French or Spanish.", {"translation", "language"}, "char", {"text", "targetLanguage"}, "POST"},
    {"Document translation", "https://lingo.example.com/documents", "Translates whole DOCX and PDF documents and keeps their layout.", {"translation", "documents"}, "page", {"file", "targetLanguage"}, "POST"},
    {"Language detection", "https://lingo.example.com/detect", "Detects which language a text is written in.", {"language"}, "call", {"text"}, "POST"},
    {"Transliteration", "https://scripts.example.org/translit", "Converts text between writing systems such as Cyrillic and Latin.", {"scripts"}, "call", {"text"}},
    {"Image OCR", "https://ocr.example.com/v2/image", "Optical character recognition: extracts printed and handwritten text from images and scans.", {"ocr", "vision"}, "image", {"imageUrl"}, "POST"},
    {"Receipt reader", "https://ocr.example.com/v2/receipt", "Reads totals, merchant and line items from photos of receipts.", {"receipts", "ocr"}, "image", {"imageUrl"}, "POST"},
    {"PDF to text", "https://docs.example.net/pdf/text", "Extracts the text of a PDF file, page by page.", {"pdf", "documents"}, "page", {"pdfUrl"}, "POST"},
    {"Sentiment analysis", "https://nlp.example.com/sentiment", "Classifies the sentiment of a review or comment as positive, negative or neutral.", {"nlp", "sentiment"}, "call", {"text"}, "POST"},
    {"Emotion detector", "https://feel.example.io/emotions", "Scores joy, anger, fear and sadness in short messages.", {"nlp", "emotion"}, "call", {"message"}, "POST"},
    {"Toxicity filter", "https://safe.example.com/toxicity", "Flags insults, threats and hate speech in user comments.", {"moderation"}, "call", {"comment"}, "POST"},
    {"Image generation", "https://pixels.example.com/generate", "Generates an image from a text prompt, in several styles and sizes.", {"image", "generative"}, "image", {"prompt", "size"}, "POST"},
    {"Logo maker", "https://brand.example.com/logo", "Designs a simple vector logo for a company name.", {"logo", "design"}, "image", {"companyName"}, "POST"},
    {"Background removal", "https://pixels.example.com/remove-bg", "Removes the background from a photo and returns a transparent PNG.", {"image", "photo"}, "image", {"imageUrl"}, "POST"},
    {"Image upscaler", "https://pixels.example.com/upscale", "Upscales a low resolution photo to 4x its size.", {"image"}, "image", {"imageUrl", "factor"}, "POST"},
    {"Web search", "https://find.example.com/search", "Searches the web and returns ranked results with titles, snippets and links.", {"search", "web"}, "query", {"q", "count"}},
    {"News search", "https://news.example.com/search", "Searches recent news articles from thousands of outlets.", {"news", "search"}, "query", {"q", "since"}},
    {"Headlines", "https://news.example.com/headlines", "Latest top headlines by country and category.", {"news"}, "call", {"country", "category"}},
    {"Geocoding", "https://geo.example.com/geocode", "Converts a street address into latitude and longitude coordinates.", {"geocoding", "maps"}, "call", {"address"}},
    {"Reverse geocoding", "https://geo.example.com/reverse", "Finds the nearest street address for latitude and longitude coordinates.", {"geocoding", "maps"}, "call", {"lat", "lon"}},
    {"Routing", "https://geo.example.com/route", "Driving, cycling and walking directions between two places.", {"maps", "directions"}, "call", {"from", "to", "mode"}},
    {"IP location", "https://ipinfo.example.net/ip", "City, country and network of an IP address.", {"ip", "geolocation"}, "call", {"ip"}},
    {"Summarizer", "https://brief.example.com/summarize", "Summarizes long documents and articles into a few sentences.", {"summarization", "nlp"}, "call", {"text", "length"}, "POST"},
    {"Meeting notes", "https://brief.example.com/meeting", "Turns a meeting transcript into action items and decisions.", {"meetings"}, "call", {"transcript"}, "POST"},
    {"Keyword extractor", "https://nlp.example.com/keywords", "Extracts the key phrases of a text.", {"nlp"}, "call", {"text"}, "POST"},
    {"Speech to text", "https://voice.example.com/transcribe", "Transcribes audio recordings to text with timestamps and speakers.", {"speech", "audio", "transcription"}, "minute", {"audioUrl", "language"}, "POST"},
    {"Text to speech", "https://voice.example.com/speak", "Reads text aloud: converts text to natural speech audio in many voices.", {"speech", "audio", "tts"}, "char", {"text", "voice"}, "POST"},
    {"Podcast clipper", "https://voice.example.com/clips", "Finds the best moments of a podcast episode.", {"podcast"}, "minute", {"episodeUrl"}, "POST"},
    {"Currency converter", "https://fx.example.com/convert", "Converts money between currencies at current exchange rates, e.g. dollars to euros.", {"currency", "finance"}, "call", {"from", "to", "amount"}},
    {"Exchange rate history", "https://fx.example.com/history", "Daily exchange rates of a currency pair since 1999.", {"currency", "finance"}, "call", {"pair", "date"}},
    {"Stock quotes", "https://market.example.com/quote", "Real-time stock price quote for a ticker symbol.", {"stocks", "finance"}, "call", {"symbol"}},
    {"Crypto prices", "https://market.example.com/crypto", "Spot prices of cryptocurrencies such as ZEC and BTC.", {"crypto", "finance"}, "call", {"coin"}},
    {"Email validator", "https://mailcheck.example.com/validate", "Checks whether an email address is valid and its mailbox exists.", {"email", "validation"}, "call", {"email"}},
    {"Phone lookup", "https://telco.example.com/lookup", "Carrier, line type and country of a phone number.", {"phone"}, "call", {"number"}},
    {"QR code generator", "https://qr.example.com/make", "Makes a QR code image for a link or any text.", {"qr", "image"}, "call", {"data", "size"}},
    {"Barcode reader", "https://qr.example.com/read", "Decodes QR codes and barcodes from a photo.", {"barcode", "qr"}, "image", {"imageUrl"}, "POST"},
    {"World clock", "https://time.example.com/now", "Current local time and timezone offset for any city.", {"time", "timezone"}, "call", {"city"}},
    {"Holiday calendar", "https://time.example.com/holidays", "Public holidays of a country for a year.", {"calendar"}, "call", {"country", "year"}},
    {"DNS lookup", "https://netdiag.example.com/dns", "Looks up DNS records (A, AAAA, MX, TXT) of a domain.", {"dns", "network"}, "call", {"domain", "type"}},
    {"WHOIS", "https://netdiag.example.com/whois", "Registration details of a domain name.", {"domain"}, "call", {"domain"}},
    {"Uptime check", "https://netdiag.example.com/ping", "Checks whether a URL responds and how fast.", {"monitoring"}, "call", {"url"}},
    {"Text embeddings", "https://vec.example.com/embed", "Embeds sentences into vectors for semantic search and clustering.", {"embeddings", "vectors"}, "call", {"texts"}, "POST"},
    {"Reranker", "https://vec.example.com/rerank", "Reorders search results by relevance to a query.", {"search", "ranking"}, "call", {"query", "documents"}, "POST"},
    {"Code formatter", "https://devtools.example.com/format", "Formats source code in 20 programming languages.", {"code"}, "call", {"code", "language"}, "POST"},
    {"Regex tester", "https://devtools.example.com/regex", "Tests a regular expression against sample strings.", {"code", "regex"}, "call", {"pattern", "input"}, "POST"},
    {"JSON validator", "https://devtools.example.com/json-schema", "Validates a JSON document against a JSON Schema.", {"json", "validation"}, "call", {"document", "schema"}, "POST"},
    {"Unit converter", "https://calc.example.com/units", "Converts lengths, weights and temperatures between units.", {"units"}, "call", {"value", "from", "to"}},
    {"Nutrition facts", "https://food.example.com/nutrition", "Calories and nutrients of a food or a recipe.", {"food", "health"}, "call", {"food"}},
    {"Recipe finder", "https://food.example.com/recipes", "Finds recipes from the ingredients you have.", {"food", "cooking"}, "call", {"ingredients"}},
    {"Flight status", "https://travel.example.com/flights", "Live status and delays of a flight number.", {"travel", "flights"}, "call", {"flight"}},
    {"Hotel search", "https://travel.example.com/hotels", "Searches hotel availability and prices in a city.", {"travel", "hotels"}, "call", {"city", "checkin"}},
    {"Air quality", "https://air.example.org/aqi", "Air quality index and pollutants near a location.", {"air", "environment"}, "call", {"lat", "lon"}},
    {"Company lookup", "https://biz.example.com/company", "Company profile, industry and size from a domain.", {"companies"}, "call", {"domain"}},
    {"Plagiarism check", "https://write.example.com/plagiarism", "Checks a text for copied passages from the web.", {"writing"}, "call", {"text"}, "POST"},
    {"Grammar fixer", "https://write.example.com/grammar", "Corrects grammar and spelling in English text.", {"writing", "grammar"}, "call", {"text"}, "POST"},
    // Keyword stuffers: every popular word in the text, repeated.
    {"Best API", "https://stuffed.example.com/all", "weather forecast markdown web page translate translation French OCR text image sentiment review positive generate image cat prompt search web geocode address latitude longitude summarize document transcribe audio speech currency dollars euros stock price email QR time Tokyo DNS news embeddings background photo", {"weather", "markdown", "ocr", "image", "search"}, "call", {"anything"}},
    {"Weather weather", "https://spam.example.com/weather", "weather weather weather weather weather weather weather weather weather weather weather forecast forecast forecast Lisbon Lisbon Berlin", {"weather", "forecast"}, "call", {"q"}},
    {"Markdown Markdown Markdown", "https://spam.example.com/md", "markdown markdown markdown markdown web web web page page page turn into convert", {"markdown"}, "call", {"q"}},
    {"AI everything", "https://spam.example.net/ai", "AI translate summarize transcribe OCR sentiment generate search geocode convert currency stock email QR DNS news embed format regex", {"ai"}, "call", {"input"}},
};


/// The snapshot of `rows` in that order, each paid `calls[i]` times on day 0 (none: never).
catalog::snapshot snapshot_of(const std::vector<listing>& rows, const std::vector<std::uint64_t>& calls = {}) {
  catalog::snapshot s;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    catalog::item_record r;
    r.provider = "p";
    r.content = catalog::make_content(fields_of(rows[i]), rows[i].method);
    r.identity = {"http", rows[i].url, rows[i].method};
    r.seq = i + 1;
    if (i < calls.size() && calls[i] > 0) {
      catalog::daily_counts::ring days{};
      days.back() = static_cast<std::uint32_t>(std::min<std::uint64_t>(calls[i], UINT32_MAX));
      r.usage = catalog::daily_counts{0, days, 1000};
    }
    s.items.push_back(catalog::make_item(std::move(r), 0));
  }
  return s;
}

std::vector<std::string> ranked_urls(const catalog::snapshot& s, std::string_view query) {
  auto& idx = s.search_index_of();
  std::vector<std::string> out;
  for (auto& h : search::spread_origins(idx, idx.rank(search::expand(query, &idx)), routes::results_per_origin))
    out.push_back(s.items[h.position]->record().identity.resource);
  return out;
}


// Intents as an agent's user would put them, none in the words of the listing meant: other
// words (WordNet's synonyms, derivations and hypernyms), typos (the catalog's own terms), and
// Spanish, Portuguese and French (FreeDict). The listing meant must be in the top 3, by the
// server's search and by the agent's own ranking, for at least 80 % of them.
const std::vector<std::pair<const char*, const char*>> recall_intents = {
    // other words
    {"is it going to snow in Denver this weekend", "https://wx.example.com/v1/forecast"},
    {"will there be drizzle in Dublin over the next few days", "https://wx.example.com/v1/forecast"},
    {"rainfall records from the 1980s", "https://climate.example.org/history"},
    {"surf report for the coast", "https://sea.example.net/marine"},
    {"give me a synopsis of this report", "https://brief.example.com/summarize"},
    {"pronounce these sentences out loud", "https://voice.example.com/speak"},
    {"write down what was said in this lecture", "https://voice.example.com/transcribe"},
    {"cut the person out and replace the backdrop", "https://pixels.example.com/remove-bg"},
    {"flag abusive replies on my forum", "https://safe.example.com/toxicity"},
    {"is this message angry or happy", "https://feel.example.io/emotions"},
    {"what is one share of Tesla trading at", "https://market.example.com/quote"},
    {"what should I cook tonight with rice and onions", "https://food.example.com/recipes"},
    {"change my cash from yen to pesos", "https://fx.example.com/convert"},
    {"recognize the writing on a photographed sign", "https://ocr.example.com/v2/image"},
    {"prediction of the sky for the next days", "https://wx.example.com/v1/forecast"},
    {"tidy up the markup of a page I paste", "https://tidy.example.com/clean"},
    {"what hour is it in Sydney right now", "https://time.example.com/now"},
    {"render a picture from my description", "https://pixels.example.com/generate"},
    {"how much smog is there near me", "https://air.example.org/aqi"},
    {"an automobile itinerary between two towns", "https://geo.example.com/route"},
    // typos
    {"tranlsation of a document into german", "https://lingo.example.com/documents"},
    {"currancy conversion", "https://fx.example.com/convert"},
    {"screenshoot of a webpage", "https://shots.example.com/capture"},
    {"sentimnet of a customer review", "https://nlp.example.com/sentiment"},
    {"geocodeing an adress", "https://geo.example.com/geocode"},
    {"transcibe a recording", "https://voice.example.com/transcribe"},
    {"sumarize an article", "https://brief.example.com/summarize"},
    {"barcod scanner", "https://qr.example.com/read"},
    {"nutrtion of an apple", "https://food.example.com/nutrition"},
    {"recieve headlnes every morning", "https://news.example.com/headlines"},
    // Spanish
    {"¿va a nevar en Denver este fin de semana?", "https://wx.example.com/v1/forecast"},
    {"traducir un texto al francés", "https://lingo.example.com/translate"},
    {"cambiar dólares a euros", "https://fx.example.com/convert"},
    {"el tiempo que hace hoy en Madrid", "https://wx.example.com/v1/current"},
    {"resumir un artículo largo", "https://brief.example.com/summarize"},
    {"quitar el fondo de una foto", "https://pixels.example.com/remove-bg"},
    {"buscar noticias recientes", "https://news.example.com/search"},
    // Portuguese
    {"previsão do tempo para amanhã", "https://wx.example.com/v1/forecast"},
    {"traduzir um documento inteiro", "https://lingo.example.com/documents"},
    {"ler o texto de uma imagem", "https://ocr.example.com/v2/image"},
    {"encontrar hotéis em Lisboa", "https://travel.example.com/hotels"},
    {"verificar um endereço de correio", "https://mailcheck.example.com/validate"},
    {"notícias de hoje", "https://news.example.com/headlines"},
    // French
    {"météo de demain à Paris", "https://wx.example.com/v1/forecast"},
    {"traduire une phrase en anglais", "https://lingo.example.com/translate"},
    {"résumer un long article", "https://brief.example.com/summarize"},
    {"convertir des dollars en euros", "https://fx.example.com/convert"},
    {"horaires d'un vol", "https://travel.example.com/flights"},
    {"reconnaissance de la voix", "https://voice.example.com/transcribe"},
};

/// Where `expected` is among `ranked` (0 the first), or ranked.size() when it is not.
std::size_t place_of(const std::vector<std::string>& ranked, std::string_view expected) {
  return static_cast<std::size_t>(std::find(ranked.begin(), ranked.end(), expected) - ranked.begin());
}
}  // namespace

CAF_TEST(the term map finds every term it holds and no other through its growth) {
  // Terms whose text outlives the map, as the index's terms are in its documents.
  std::vector<std::string> text;
  for (int i = 0; i < 5000; ++i) text.push_back("t" + std::to_string(i));
  search::term_map<int> map;
  CAF_CHECK(map.find("t0") == nullptr);  // empty
  for (std::size_t i = 0; i < text.size(); ++i) {
    map[text[i]] = static_cast<int>(i);
    // Asked again at once, and again for the first term while the table has grown since.
    CAF_REQUIRE_EQUAL(map[text[i]], static_cast<int>(i));
    CAF_REQUIRE_EQUAL(map[text[0]], 0);
  }
  CAF_CHECK_EQUAL(map.size(), text.size());
  bool all_found = true;
  for (std::size_t i = 0; i < text.size(); ++i) {
    auto* v = map.find(text[i]);
    all_found = all_found && v && *v == static_cast<int>(i);
  }
  CAF_CHECK(all_found);
  CAF_CHECK(map.find("t5000") == nullptr);
  CAF_CHECK(map.find("") == nullptr);
  CAF_CHECK(map.find("t") == nullptr);
  // In the order first asked for: the index's later pass walks them so.
  map.shrink_to_fit();
  bool in_order = true;
  for (std::size_t i = 0; i < text.size(); ++i) in_order = in_order && map.entries()[i].term == text[i];
  CAF_CHECK(in_order);
}

CAF_TEST(the term map forgets an erased term and keeps every other) {
  // Every third term erased, then the rest: with 5,000 terms in 8,192 slots, runs of
  // neighbouring slots are long and wrap around the table's end, so an erase must move the
  // slots after it that a probe would otherwise no longer reach.
  std::vector<std::string> text;
  for (int i = 0; i < 5000; ++i) text.push_back("t" + std::to_string(i));
  search::term_map<int> map;
  for (std::size_t i = 0; i < text.size(); ++i) map[text[i]] = static_cast<int>(i);
  map.erase("absent", map.hash_of("absent"));
  CAF_CHECK_EQUAL(map.size(), text.size());
  for (std::size_t i = 0; i < text.size(); i += 3) map.erase(text[i], map.hash_of(text[i]));
  bool right = true;
  for (std::size_t i = 0; i < text.size(); ++i) {
    auto* v = map.find(text[i]);
    right = right && (i % 3 == 0 ? v == nullptr : v && *v == static_cast<int>(i));
    if (auto* e = map.entry_of(text[i], map.hash_of(text[i]))) right = right && e->term == text[i] && e->value == static_cast<int>(i);
  }
  CAF_CHECK(right);
  CAF_CHECK_EQUAL(map.size(), text.size() - (text.size() + 2) / 3);
  // Added again, an erased term is found with its new value.
  map[text[0]] = -1;
  CAF_CHECK(map.find(text[0]) && *map.find(text[0]) == -1);
  map.erase(text[0], map.hash_of(text[0]));
  for (std::size_t i = 0; i < text.size(); ++i)
    if (i % 3 != 0) map.erase(text[i], map.hash_of(text[i]));
  CAF_CHECK_EQUAL(map.size(), 0u);
  bool none = true;
  for (auto& t : text) none = none && map.find(t) == nullptr;
  CAF_CHECK(none);
}

CAF_TEST(the tokenizer splits identifiers and folds case) {
  CAF_CHECK_EQUAL(search::tokenize("WEATHER Weather weather").size(), 3u);
  auto upper = search::tokenize("WEATHER"), lower = search::tokenize("weather");
  CAF_CHECK_EQUAL(upper, lower);
  // "by" and "to" are stopwords (Snowball's English list); "get" is not.
  CAF_CHECK_EQUAL(search::tokenize("getWeatherByCity"), (std::vector<std::string>{"get", search::stem("weather"), search::stem("city")}));
  auto acronym = search::tokenize("HTTPServer");
  CAF_REQUIRE_EQUAL(acronym.size(), 2u);
  CAF_CHECK_EQUAL(acronym[0], "http");
  CAF_CHECK_EQUAL(acronym[1], search::stem("server"));
  CAF_CHECK_EQUAL(search::tokenize("snake_case kebab-case path/to.file").size(), 6u);
}

CAF_TEST(the tokenizer is Unicode aware) {
  auto t = search::tokenize("Über Café — ΚΑΦΈ, Москва!");
  CAF_REQUIRE_EQUAL(t.size(), 4u);
  CAF_CHECK_EQUAL(t[0], "uber");  // ICU's folding: case folded, the diacritics' marks dropped
  CAF_CHECK_EQUAL(t[1], "cafe");
  CAF_CHECK_EQUAL(search::tokenize("ΚΑΦΈ"), search::tokenize("καφε"));
  // "mañana", "manana" and "MAÑANA" meet, whether the tilde is one code point or a combining mark.
  auto manana = search::words_of("manana");
  CAF_CHECK_EQUAL(search::words_of("mañana"), manana);
  CAF_CHECK_EQUAL(search::words_of("MAÑANA"), manana);
  CAF_CHECK_EQUAL(search::words_of("man\u0303ana"), manana);
  CAF_CHECK_EQUAL(search::words_of("Straße"), std::vector<std::string>{"straße"});
  auto cyrillic_upper = search::tokenize("МОСКВА"), cyrillic_lower = search::tokenize("москва");
  CAF_CHECK_EQUAL(cyrillic_upper, cyrillic_lower);
  CAF_CHECK(search::tokenize("\xff\xfe broken").size() == 1u);
  CAF_CHECK(search::tokenize("😀 🚀").empty());
}

CAF_TEST(stopwords and stems) {
  CAF_CHECK(search::tokenize("what is the").empty());
  CAF_CHECK_EQUAL(search::stem("translation"), search::stem("translate"));
  CAF_CHECK_EQUAL(search::stem("images"), search::stem("image"));
  CAF_CHECK_EQUAL(search::stem("summarization"), search::stem("summarize"));
  CAF_CHECK_EQUAL(search::stem("generating"), search::stem("generate"));
  CAF_CHECK_EQUAL(search::stem("cities"), search::stem("city"));
  CAF_CHECK_NOT_EQUAL(search::stem("weather"), search::stem("wealth"));
}

CAF_TEST(a repeated word buys no rank and stuffing costs rank) {
  std::vector<listing> rows = {
      {"Forecasts", "https://a.example.com/x", "Weather forecast for a city.", {}, "call", {}},
      {"Forecasts", "https://b.example.com/x", "Weather weather weather weather forecast for a city.", {}, "call", {}},
  };
  auto s = snapshot_of(rows);
  auto& idx = s.search_index_of();
  auto q = search::expand("weather forecast", &idx);
  auto hits = idx.rank(q);
  CAF_REQUIRE_EQUAL(hits.size(), 2u);
  CAF_CHECK_EQUAL(hits[0].position, 0u);
  CAF_CHECK_GREATER(hits[0].score, hits[1].score);
  // Two equal documents tie, and ties keep list order.
  auto same = snapshot_of({rows[0], {"Forecasts", "https://c.example.com/x", "Weather forecast for a city.", {}, "call", {}}});
  auto tied = same.search_index_of().rank(search::literal("weather forecast"));
  CAF_REQUIRE_EQUAL(tied.size(), 2u);
  CAF_CHECK_EQUAL(tied[0].score, tied[1].score);
  CAF_CHECK_EQUAL(tied[0].position, 0u);
}

CAF_TEST(paid calls lift a listing only within a tenth of its relevance) {
  // The factor at its limits: none for no calls, the whole tenth from 100,000 calls, never more.
  CAF_CHECK_EQUAL(search::usage_factor(0), 1.0);
  CAF_CHECK_GREATER(search::usage_factor(1), 1.0);
  CAF_CHECK_LESS(search::usage_factor(99'999), 1.1);
  CAF_CHECK_EQUAL(search::usage_factor(100'000), 1.1);
  CAF_CHECK_EQUAL(search::usage_factor(UINT64_MAX), 1.1);
  CAF_CHECK(search::usage_prior::of({0, 0, 0}).by_position.empty());
  // Two listings that match alike, and one that matches "weather forecast" clearly worse: the
  // paid one of the two comes first, and no number of calls lifts the third above them.
  std::vector<listing> rows = {
      {"Forecasts", "https://a.example.com/x", "Weather forecast for a city.", {}, "call", {}},
      {"Forecasts", "https://b.example.com/x", "Weather forecast for a city.", {}, "call", {}},
      {"City guide", "https://c.example.com/x", "Weather for a city.", {}, "call", {}},
  };
  // Listings of something else, so that the two words weigh as in a catalog.
  for (int i = 0; i < 20; ++i) rows.push_back({"Translation", "https://t.example.com/x", "Translates text.", {}, "call", {}});
  auto s = snapshot_of(rows);
  auto& idx = s.search_index_of();
  auto q = search::expand("weather forecast", &idx);
  auto plain = idx.rank(q);
  CAF_REQUIRE_EQUAL(plain.size(), 3u);
  CAF_REQUIRE_EQUAL(plain[0].score, plain[1].score);
  CAF_REQUIRE_GREATER(plain[1].score, plain[2].score * 1.1);
  std::vector<std::uint64_t> calls(rows.size(), 0);
  calls[1] = 500;
  calls[2] = 5'000'000;
  auto prior = search::usage_prior::of(calls);
  auto paid = idx.rank(q, &prior);
  CAF_REQUIRE_EQUAL(paid.size(), 3u);
  CAF_CHECK_EQUAL(paid[0].position, 1u);
  CAF_CHECK_EQUAL(paid[1].position, 0u);
  CAF_CHECK_EQUAL(paid[2].position, 2u);
  CAF_CHECK_EQUAL(paid[0].score, plain[0].score * static_cast<double>(static_cast<float>(search::usage_factor(500))));
  // The server's snapshot (its items' quality blocks) and the agent's ranking of the items it
  // read agree, and both explain the factor.
  auto counted = snapshot_of(rows, calls);
  CAF_CHECK(counted.usage_prior_of().by_position == prior.by_position);
  routes::cursor_signer signer{"0123456789abcdef0123456789abcdef"};
  auto req = routes::parse_search_request("query=weather+forecast&explain=1", signer, 1000);
  CAF_REQUIRE(req);
  auto body = boost::json::parse(routes::render_search(counted, *req, signer, 1000)).as_object();
  auto& resources = body.at("resources").as_array();
  CAF_REQUIRE_EQUAL(resources.size(), 3u);
  CAF_CHECK_EQUAL(resources[0].at("resource"), "https://b.example.com/x");
  CAF_CHECK_EQUAL(resources[1].at("resource"), "https://a.example.com/x");
  CAF_CHECK_EQUAL(resources[2].at("resource"), "https://c.example.com/x");
  auto& first = body.at("explain").as_array()[0].as_object();
  CAF_CHECK_EQUAL(first.at("usage").as_double(), std::round(search::usage_factor(500) * 1e4) / 1e4);
  CAF_CHECK(first.contains("relevance"));
  CAF_CHECK(!body.at("explain").as_array()[1].as_object().contains("usage"));
  std::vector<boost::json::object> items;
  for (auto& item : counted.items) {
    std::string json;
    item->append_json(json);
    items.push_back(boost::json::parse(json).as_object());
  }
  auto agent = agent::rank(items, "weather forecast", true);
  CAF_REQUIRE_GREATER_OR_EQUAL(agent.order.size(), 3u);
  CAF_CHECK_EQUAL(agent.order[0], 1u);
  CAF_CHECK_EQUAL(agent.order[1], 0u);
  CAF_CHECK_EQUAL(agent.order[2], 2u);
  CAF_CHECK(agent.why[1].find("; usage x1.0") != std::string::npos);
  CAF_CHECK(agent.why[0].find("usage") == std::string::npos);
}

CAF_TEST(at most three results per origin keep their place) {
  std::vector<listing> rows;
  static const char* urls[] = {"https://one.example.com/a", "https://one.example.com/b", "https://one.example.com/c",
                               "https://one.example.com/d", "https://one.example.com/e", "https://two.example.com/a"};
  for (auto u : urls) rows.push_back({"Weather", u, "Weather for a city.", {}, "call", {}});
  rows.back().description = "Weather service for a city, with maps.";  // a little lower
  auto ranked = ranked_urls(snapshot_of(rows), "weather");
  CAF_REQUIRE_EQUAL(ranked.size(), 6u);
  CAF_CHECK_EQUAL(ranked[3], "https://two.example.com/a");
  CAF_CHECK_EQUAL(ranked[4], "https://one.example.com/d");
  CAF_CHECK_EQUAL(ranked[5], "https://one.example.com/e");
}

CAF_TEST(an agent intent finds the intended service first) {
  CAF_REQUIRE_GREATER_OR_EQUAL(catalog_rows.size(), 60u);
  auto s = snapshot_of(catalog_rows);
  const std::vector<std::pair<const char*, const char*>> intents = {
      {"turn a web page into markdown", "https://markdown.example.com/v1/markdown"},
      {"what's the weather in Lisbon", "https://wx.example.com/v1/current"},
      {"7 day weather forecast for Berlin", "https://wx.example.com/v1/forecast"},
      {"translate this paragraph from English to French", "https://lingo.example.com/translate"},
      {"extract text from a scanned image", "https://ocr.example.com/v2/image"},
      {"is this customer review positive or negative", "https://nlp.example.com/sentiment"},
      {"generate an image of a cat from a text prompt", "https://pixels.example.com/generate"},
      {"search the web for pages about x402", "https://find.example.com/search"},
      {"convert a street address to latitude and longitude", "https://geo.example.com/geocode"},
      {"nearest address for these coordinates", "https://geo.example.com/reverse"},
      {"summarize a long article", "https://brief.example.com/summarize"},
      {"transcribe an audio recording", "https://voice.example.com/transcribe"},
      {"read this text aloud", "https://voice.example.com/speak"},
      {"convert 100 dollars to euros", "https://fx.example.com/convert"},
      {"stock price for AAPL", "https://market.example.com/quote"},
      {"check if an email address is valid", "https://mailcheck.example.com/validate"},
      {"get the text out of a PDF file", "https://docs.example.net/pdf/text"},
      {"make a QR code for a link", "https://qr.example.com/make"},
      {"what time is it in Tokyo", "https://time.example.com/now"},
      {"look up the MX records of a domain", "https://netdiag.example.com/dns"},
      {"latest news headlines", "https://news.example.com/headlines"},
      {"embed sentences as vectors for semantic search", "https://vec.example.com/embed"},
      {"remove the background from a product photo", "https://pixels.example.com/remove-bg"},
      {"which language is this text written in", "https://lingo.example.com/detect"},
  };
  std::size_t stuffed_first = 0;
  for (auto& [intent, expected] : intents) {
    auto ranked = ranked_urls(s, intent);
    CAF_REQUIRE(!ranked.empty());
    if (ranked.front() != expected) {
      auto& idx = s.search_index_of();
      for (auto& h : idx.rank(search::expand(intent, &idx)))
        CAF_MESSAGE(s.items[h.position]->record().identity.resource << " " << h.score);
      CAF_FAIL("\"" << intent << "\": expected " << expected << " first, got " << ranked.front());
    }
    CAF_CHECK_EQUAL(ranked.front(), expected);
    stuffed_first += ranked.front().find("stuffed") != std::string::npos || ranked.front().find("spam") != std::string::npos;
  }
  CAF_CHECK_EQUAL(stuffed_first, 0u);
}

CAF_TEST(intents in other words with typos and in other languages find their listing) {
  CAF_REQUIRE_GREATER_OR_EQUAL(recall_intents.size(), 40u);
  auto s = snapshot_of(catalog_rows);
  // The agent ranks the items as the server lists them.
  std::vector<boost::json::object> items;
  for (auto& item : s.items) {
    std::string json;
    item->append_json(json);
    items.push_back(boost::json::parse(json).as_object());
  }
  std::size_t by_server = 0, by_agent = 0;
  for (auto& [intent, expected] : recall_intents) {
    const auto server = place_of(ranked_urls(s, intent), expected);
    const auto ranking = agent::rank(items, intent, true);
    std::vector<std::string> agent_urls;
    for (auto p : ranking.order)
      if (ranking.scores[p] > 0) agent_urls.emplace_back(items[p].at("resource").as_string());
    const auto agent = place_of(agent_urls, expected);
    by_server += server < 3;
    by_agent += agent < 3;
    if (server >= 3 || agent >= 3) {
      auto first = ranking.order.front();
      CAF_MESSAGE("miss: \"" << intent << "\" (" << expected << "): place " << server + 1 << " by the server, " << agent + 1
                              << " by the agent; first " << items[first].at("resource").as_string() << ": " << ranking.why[first]);
    }
  }
  CAF_MESSAGE("in the top 3: " << by_server << " of " << recall_intents.size() << " by the server, " << by_agent << " by the agent");
  CAF_CHECK_GREATER_OR_EQUAL(by_server * 5, recall_intents.size() * 4);
  CAF_CHECK_GREATER_OR_EQUAL(by_agent * 5, recall_intents.size() * 4);
}

CAF_TEST(cursors are bound to their search and expire) {
  routes::cursor_signer signer{"0123456789abcdef0123456789abcdef"};
  auto c = signer.issue(10, "fingerprint-a", 1000);
  auto redeemed = signer.redeem(c, "fingerprint-a", 2000);
  CAF_REQUIRE(redeemed);
  CAF_CHECK_EQUAL(*redeemed, 10u);
  auto refused = [&](std::string_view cursor, std::string_view fingerprint, std::int64_t now,
                     const routes::cursor_signer& by) {
    auto r = by.redeem(cursor, fingerprint, now);
    return !r && r.error().code == errc::invalid_cursor && r.error().field == "cursor";
  };
  CAF_CHECK(refused(c, "fingerprint-b", 2000, signer));
  CAF_CHECK(signer.redeem(c, "fingerprint-a", 1000 + routes::cursor_lifetime_ms));
  CAF_CHECK(refused(c, "fingerprint-a", 1001 + routes::cursor_lifetime_ms, signer));
  auto tampered = c;
  tampered[2] = tampered[2] == 'A' ? 'B' : 'A';
  CAF_CHECK(refused(tampered, "fingerprint-a", 2000, signer));
  CAF_CHECK(refused("not-a-cursor", "fingerprint-a", 2000, signer));
  CAF_CHECK(refused(c, "fingerprint-a", 2000, routes::cursor_signer{"another key of thirty-two bytes!"}));
}

CAF_TEST(paging a search with limit 5 returns every match once) {
  auto s = snapshot_of(catalog_rows);
  routes::cursor_signer signer{"0123456789abcdef0123456789abcdef"};
  auto all = ranked_urls(s, "image photo text");
  CAF_REQUIRE_GREATER(all.size(), 10u);
  std::vector<std::string> paged;
  std::string query = "query=image+photo+text&limit=5";
  for (int page = 0; page < 100; ++page) {
    auto req = routes::parse_search_request(query, signer, 5000);
    CAF_REQUIRE(req.has_value());
    auto body = boost::json::parse(routes::render_search(s, *req, signer, 5000)).as_object();
    for (auto& r : body.at("resources").as_array()) paged.emplace_back(r.at("resource").as_string());
    CAF_CHECK_EQUAL(body.at("pagination").at("limit").as_int64(), 5);
    auto& cursor = body.at("pagination").at("cursor");
    if (cursor.is_null()) break;
    query = "query=image+photo+text&limit=5&cursor=" + std::string{cursor.as_string()};
  }
  CAF_CHECK_EQUAL(paged, all);
  CAF_CHECK_EQUAL(std::set<std::string>(paged.begin(), paged.end()).size(), paged.size());
  // The same cursor with another query or another filter is refused.
  auto first = boost::json::parse(routes::render_search(s, *routes::parse_search_request("query=image+photo+text&limit=5", signer, 5000), signer, 5000));
  std::string cursor{first.at("pagination").at("cursor").as_string()};
  auto code_of = [&](const std::string& q) { return routes::parse_search_request(q, signer, 5000).error().code; };
  CAF_CHECK(code_of("query=image&limit=5&cursor=" + cursor) == errc::invalid_cursor);
  CAF_CHECK(code_of("query=image+photo+text&type=mcp&cursor=" + cursor) == errc::invalid_cursor);
}

CAF_TEST(a search needs a query of at most 512 characters) {
  routes::cursor_signer signer{"k"};
  auto refused = [&](const std::string& q, errc code, std::string_view field) {
    auto req = routes::parse_search_request(q, signer, 0);
    return !req && req.error().code == code && req.error().field == field;
  };
  CAF_CHECK(refused("", errc::query_required, "query"));
  CAF_CHECK(refused("query=+++", errc::query_required, "query"));
  CAF_CHECK(routes::parse_search_request("query=" + std::string(512, 'a'), signer, 0));
  CAF_CHECK(refused("query=" + std::string(513, 'a'), errc::invalid_filter, "query"));
  CAF_CHECK(refused("query=x&type=ftp", errc::invalid_filter, "type"));
}

CAF_TEST(resolve finds the item of every provider with one identity and no other) {
  auto s = snapshot_of(catalog_rows);
  auto body = routes::render_resource(s, "type=http&url=https%3A%2F%2FWX.example.com%2Fv1%2Fcurrent%2F&method=GET");
  CAF_REQUIRE(body.has_value());
  CAF_CHECK_EQUAL(boost::json::parse(*body).at("resources").as_array().size(), 1u);
  auto refused = [&](std::string_view q, errc code, std::string_view field) {
    auto r = routes::render_resource(s, q);
    return !r && r.error().code == code && r.error().field == field;
  };
  CAF_CHECK(refused("type=http&url=https%3A%2F%2Fwx.example.com%2Fv1%2Fcurrent&method=POST", errc::not_found, ""));
  CAF_CHECK(refused("type=http", errc::invalid_filter, "url"));
  CAF_CHECK(refused("url=https%3A%2F%2Fa.example.com", errc::invalid_filter, "type"));
  CAF_CHECK(refused("type=mcp&url=https%3A%2F%2Fa.example.com", errc::invalid_filter, "toolName"));
  // One identity listed three times among others (as by three payees), and the same URL with
  // another method: the three, in listing order, from the identity index.
  auto rows = catalog_rows;
  auto twice = rows[0];
  rows.insert(rows.begin() + 3, twice);
  rows.push_back(twice);
  auto posted = rows[1];
  posted.url = twice.url;
  posted.method = "POST";
  rows.push_back(posted);
  auto many = snapshot_of(rows);
  auto found = many.identity_index_of().positions(many.items, "http", twice.url, "GET");
  CAF_CHECK(found == (std::vector<std::size_t>{0, 3, rows.size() - 2}));
  CAF_CHECK(many.identity_index_of().positions(many.items, "http", twice.url, "POST") == std::vector<std::size_t>{rows.size() - 1});
  CAF_CHECK(many.identity_index_of().positions(many.items, "mcp", twice.url, "GET").empty());
  auto three = routes::render_resource(many, "type=http&url=https%3A%2F%2Fwx.example.com%2Fv1%2Fcurrent");
  CAF_REQUIRE(three.has_value());
  CAF_CHECK_EQUAL(boost::json::parse(*three).at("resources").as_array().size(), 3u);
}

CAF_TEST(the best hits and their pages equal those of the whole ranking) {
  // 300 listings over 5 origins, scores spread and tied: the k best (scored with skipping) must
  // be the first k of the whole ranking, score for score; a page must be what spread_origins of
  // the whole ranking gives, at every offset, past the end, and where origins run short (5
  // origins x 3 places = 15 hits keep theirs; the rest come after, in rank order); with a
  // filter, the same of the ranking's hits that pass it.
  std::vector<std::string> urls, descriptions;
  for (int i = 0; i < 300; ++i) {
    urls.push_back("https://o" + std::to_string(i % 5) + ".example.com/r" + std::to_string(i));
    descriptions.push_back(std::string{i % 3 ? "Weather forecast" : "Weather"} + std::string(static_cast<std::size_t>(i % 7), '!') +
                           " for city " + std::to_string(i % 11) + ".");
  }
  std::vector<listing> rows;
  for (int i = 0; i < 300; ++i) rows.push_back({"Forecasts", urls[i].c_str(), descriptions[i].c_str(), {}, "call", {}});
  rows.insert(rows.end(), catalog_rows.begin(), catalog_rows.end());
  auto s = snapshot_of(rows);
  auto& idx = s.search_index_of();
  std::vector<std::uint32_t> every_third, none;
  for (std::uint32_t i = 0; i < idx.size(); i += 3) every_third.push_back(i);
  // And with a usage prior that reorders close scores: calls from none to past the full weight.
  std::vector<std::uint64_t> calls(idx.size());
  for (std::size_t i = 0; i < calls.size(); ++i) calls[i] = i % 4 == 0 ? 0 : (i * 7919) % 200'000;
  const auto paid = search::usage_prior::of(calls);
  CAF_REQUIRE(paid.largest > 1.09f);
  for (auto prior : {static_cast<const search::usage_prior*>(nullptr), &paid})
  for (auto query : {"weather", "weather forecast", "weather city 3", "forecast city 7 weather", "translate text", "nothing matches zzz"}) {
    auto terms = search::expand(query, &idx);
    using rows = const std::vector<std::uint32_t>*;
    for (rows allowed : {rows{nullptr}, rows{&every_third}, rows{&none}}) {
      auto ranking = idx.rank(terms, prior);
      if (allowed)
        std::erase_if(ranking, [&](const search::hit& h) {
          return !std::binary_search(allowed->begin(), allowed->end(), static_cast<std::uint32_t>(h.position));
        });
      for (std::size_t k : {1u, 2u, 10u, 63u, 64u, 65u, 100u, 1000u}) {
        auto best = idx.top(terms, k, allowed, prior);
        const std::size_t expected_size = std::min(k, ranking.size());
        CAF_CHECK_EQUAL(best.size(), expected_size);
        for (std::size_t i = 0; i < best.size() && i < ranking.size(); ++i) {
          CAF_CHECK_EQUAL(best[i].position, ranking[i].position);
          CAF_CHECK_EQUAL(best[i].score, ranking[i].score);
        }
      }
      auto whole = search::spread_origins(idx, ranking, routes::results_per_origin);
      for (std::size_t offset : {0u, 1u, 10u, 14u, 15u, 16u, 100u, 299u, 400u})
        for (std::size_t limit : {1u, 10u, 100u, 1000u}) {
          std::vector<std::size_t> expected;
          for (auto i = offset; i < whole.size() && expected.size() < limit; ++i) expected.push_back(whole[i].position);
          auto page = search::page_of(idx, terms, allowed, routes::results_per_origin, offset, limit, prior);
          CAF_CHECK(page.positions == expected);
          CAF_CHECK_EQUAL(page.more, whole.size() > offset + limit);
        }
    }
  }
}

namespace {

/// The documents and listing keys of a snapshot, as the catalog gives them to its index.
struct listed_docs {
  std::vector<const search::document*> docs;
  std::vector<std::uint64_t> keys;
};

listed_docs docs_of(const catalog::snapshot& s) {
  listed_docs out;
  for (auto& it : s.items) {
    out.docs.push_back(&it->record().content->doc);
    out.keys.push_back(it->record().seq);
  }
  return out;
}

/// Every query's whole ranking, its best hits and a page spread by origin are the same in both.
void check_same_hits(const search::index& a, const search::index& b, const std::vector<std::string>& queries) {
  CAF_CHECK_EQUAL(a.size(), b.size());
  for (auto& query : queries) {
    auto terms = search::expand(query, &a);
    auto ra = a.rank(terms), rb = b.rank(terms);
    CAF_CHECK_EQUAL(ra.size(), rb.size());
    bool same = ra.size() == rb.size();
    for (std::size_t i = 0; same && i < ra.size(); ++i) same = ra[i].position == rb[i].position && ra[i].score == rb[i].score;
    if (!same) CAF_FAIL("\"" << query << "\" ranks differently");
    for (std::size_t k : {1u, 10u, 100u}) {
      auto ta = a.top(terms, k), tb = b.top(terms, k);
      same = ta.size() == tb.size();
      for (std::size_t i = 0; same && i < ta.size(); ++i) same = ta[i].position == tb[i].position && ta[i].score == tb[i].score;
      CAF_CHECK(same);
    }
    auto pa = search::page_of(a, terms, nullptr, routes::results_per_origin, 0, 50);
    auto pb = search::page_of(b, terms, nullptr, routes::results_per_origin, 0, 50);
    CAF_CHECK(pa.positions == pb.positions);
  }
}

}  // namespace

CAF_TEST(an index updated from the last version finds what one built whole finds) {
  // 300 generated listings over 7 origins, then the realistic catalog: a version changes some
  // items, adds some at the end and drops the last, as declarations do; each updated index must
  // rank every query as a whole build of the same listing does, score for score.
  std::vector<std::string> urls, descriptions;
  std::vector<listing> rows;
  for (int i = 0; i < 300; ++i) {
    urls.push_back("https://o" + std::to_string(i % 7) + ".example.com/r" + std::to_string(i));
    descriptions.push_back("Weather forecast " + std::string(i % 2 ? "and tides " : "") + "for city " + std::to_string(i % 13) + ".");
  }
  for (int i = 0; i < 300; ++i) rows.push_back({"Forecasts", urls[i].c_str(), descriptions[i].c_str(), {}, "call", {}});
  rows.insert(rows.end(), catalog_rows.begin(), catalog_rows.end());
  auto s = snapshot_of(rows);
  const std::vector<std::string> queries = {"weather",        "weather forecast city 3", "tides",   "zeppelin lantern", "forecasts",
                                            "translate text", "markdown web page",       "city 12", "brand new quokka", "example"};
  auto current = std::make_unique<search::index>(docs_of(s).docs, docs_of(s).keys);
  std::uint64_t next_seq = rows.size() + 1;
  auto content = [](std::string url, std::string description) {
    listing l{"Forecasts", "", "", {}, "call", {}};
    l.url = url.c_str();
    l.description = description.c_str();
    return catalog::make_content(fields_of(l), "GET");
  };
  auto replace = [&](std::size_t position, const std::string& description) {
    auto r = s.items[position]->record();
    r.content = content(r.identity.resource, description);
    s.items.set(s.items.begin() + static_cast<std::ptrdiff_t>(position), catalog::make_item(std::move(r), 0));
  };
  auto append = [&](const std::string& url, const std::string& description) {
    catalog::item_record r;
    r.provider = "p";
    r.identity = {"http", url, "GET"};
    r.content = content(url, description);
    r.seq = next_seq++;
    s.items.push_back(catalog::make_item(std::move(r), 0));
  };
  for (int round = 0; round < 6; ++round) {
    // The update reads the last version's documents; nothing holds them after it, as in the
    // catalog once that version's snapshots are gone.
    auto last_version = s.items;
    // A rare word comes and goes with one item; a common one changes its count; items come at
    // the end (a new origin among them) and the last one leaves. The first item, where the
    // index found most terms first, changes its description and keeps its route ("example",
    // the same weight): that term's list is the same, and must not lean on the old item's text.
    if (round == 0) replace(0, "Forecasts of wind alone.");
    replace(static_cast<std::size_t>(17 * round + 5), round % 2 ? "Zeppelin lantern weather." : "Plain weather for city 3.");
    replace(static_cast<std::size_t>(31 * round + 2), "Tides only, for city " + std::to_string(round) + ".");
    append("https://new" + std::to_string(round % 2) + ".quokka.test/q" + std::to_string(round), "Brand new quokka forecast.");
    if (round % 3 == 2) s.items.erase(s.items.end() - 1);
    auto listed = docs_of(s);
    auto updated = search::index::updated(*current, std::move(listed.docs), std::move(listed.keys));
    CAF_REQUIRE(updated.has_value());
    search::index whole{docs_of(s).docs, docs_of(s).keys};
    check_same_hits(*updated, whole, queries);
    current = std::make_unique<search::index>(std::move(*updated));
  }
  // The update declines, leaving the listing for a whole build, when an item before others
  // left (their positions moved) and when more than an eighth of the items changed.
  const auto current_items = s.items;  // the documents of `current`
  s.items.erase(s.items.begin() + 10);
  auto moved = docs_of(s);
  CAF_CHECK(!search::index::updated(*current, std::move(moved.docs), std::move(moved.keys)).has_value());
  CAF_CHECK_EQUAL(moved.docs.size(), s.items.size());
  CAF_CHECK_EQUAL(moved.keys.size(), s.items.size());
  search::index base{docs_of(s).docs, docs_of(s).keys};
  const auto base_items = s.items;  // base's documents, alive through the updates below
  const auto eighth = s.items.size() / 8;
  for (std::size_t i = 0; i < eighth; ++i) replace(i, "Rewritten weather " + std::to_string(i) + ".");
  auto at_limit = docs_of(s);
  auto updated = search::index::updated(base, std::move(at_limit.docs), std::move(at_limit.keys));
  CAF_REQUIRE(updated.has_value());
  check_same_hits(*updated, search::index{docs_of(s).docs, docs_of(s).keys}, queries);
  replace(eighth, "Rewritten weather once too often.");
  auto past_limit = docs_of(s);
  CAF_CHECK(!search::index::updated(base, std::move(past_limit.docs), std::move(past_limit.keys)).has_value());
}

CAF_TEST(a content version keeps the last searched one for at most 64 versions) {
  // The first version is searched; then each version rewrites the first item and nobody
  // searches. The searched version's snapshot is kept (its index and documents, to update from)
  // for 64 content versions, then let go with the old content it held, and the next search
  // builds whole and finds the newest text.
  auto rows = std::vector<listing>(catalog_rows.begin(), catalog_rows.begin() + 10);
  auto first = std::make_shared<catalog::snapshot>(snapshot_of(rows));
  first->indexes = catalog::content_indexes::after(nullptr);
  CAF_REQUIRE(!first->search_index_of().rank(search::literal("weather")).empty());
  std::weak_ptr<const catalog::item_content> searched_content = first->items[0]->record().content;
  catalog::snapshot_ptr last = first;
  first.reset();
  auto next_version = [&](std::uint64_t v) {
    auto items = last->items;
    auto r = items[0]->record();
    listing l = rows[0];
    auto description = "Revision " + std::string(1, static_cast<char>('a' + v % 26)) + " of the weather.";
    l.description = description.c_str();
    r.content = catalog::make_content(fields_of(l), "GET");
    items.set(items.begin(), catalog::make_item(std::move(r), 0));
    last = catalog::make_snapshot(1, v + 1, std::move(items), 0, 1, 0, catalog::content_indexes::after(last));
  };
  for (std::uint64_t v = 1; v <= catalog::content_indexes::max_versions_behind; ++v) next_version(v);
  CAF_CHECK(!searched_content.expired());  // at the limit: kept to update from
  next_version(catalog::content_indexes::max_versions_behind + 1);
  CAF_CHECK(searched_content.expired());  // one past it: let go
  auto newest = "revision " + std::string(1, static_cast<char>('a' + (catalog::content_indexes::max_versions_behind + 1) % 26));
  auto hits = last->search_index_of().rank(search::literal(newest));
  CAF_REQUIRE(!hits.empty());
  CAF_CHECK_EQUAL(hits[0].position, 0u);
}
CAF_TEST(a synonym list in the description or tags buys no rank) {
  // One forecast says what it does; the other says the same, then lists every word for weather
  // it can think of, in its description and its tags, to be found by queries in other words.
  auto rows = catalog_rows;
  rows.push_back({"Weather forecast", "https://honest.example.com/forecast", "Daily weather forecast for the next seven days for any city.",
                  {"weather", "forecast"}, "call", {"city"}});
  rows.push_back({"Weather forecast", "https://listed.example.com/forecast",
                  "Daily weather forecast for the next seven days for any city. Forecast, prediction, prognosis, outlook, foretelling, "
                  "weather, conditions, atmosphere, meteorology, snow, snowfall, rain, rainfall, precipitation, drizzle, storm.",
                  {"weather", "forecast", "prediction", "prognosis", "outlook", "meteorology", "snow", "rain", "precipitation"}, "call",
                  {"city"}});
  auto s = snapshot_of(rows);
  auto& idx = s.search_index_of();
  bool only_the_list_listed = true;
  for (std::size_t i = 0; i < idx.size(); ++i)
    only_the_list_listed = only_the_list_listed && (idx.doc(i).listed > 0.3f) == (s.items[i]->record().identity.resource == "https://listed.example.com/forecast");
  CAF_CHECK(only_the_list_listed);
  for (auto query : {"weather forecast for Berlin", "is it going to snow in Denver this weekend", "prediction of the sky for the next days",
                     "will there be drizzle in Dublin", "rainfall next week", "previsão do tempo para amanhã", "prognosis for the weekend"}) {
    auto ranked = ranked_urls(s, query);
    auto honest = place_of(ranked, "https://honest.example.com/forecast"), listed = place_of(ranked, "https://listed.example.com/forecast");
    CAF_CHECK_LESS(honest, listed);
  }
}

CAF_TEST(three words for one thing are a text and four a list) {
  // "forecast", "prediction", "prognosis" and "foretelling" are WordNet synonyms of one another.
  auto listed = [](const char* description) {
    return search::make_document(fields_of({"Forecasts", "https://a.example.com/x", description, {}, "call", {}}), "GET").listed;
  };
  CAF_CHECK_EQUAL(listed("A forecast for a city, a prediction of its days."), 0.0f);
  CAF_CHECK_EQUAL(listed("A forecast for a city: prediction and prognosis of its days."), 0.0f);  // at the allowance
  CAF_CHECK_GREATER(listed("A forecast for a city: prediction, prognosis and foretelling of its days."), 0.0f);  // one past it
}

namespace {

/// The query's terms that came by `via`.
std::vector<search::query_term> terms_by(const search::query& q, search::expansion via) {
  std::vector<search::query_term> out;
  for (auto& t : q.terms)
    if (t.via == via) out.push_back(t);
  return out;
}

bool corrects(const search::index& idx, const char* typed, const char* term) {
  auto typos = terms_by(search::expand(typed, &idx), search::expansion::typo);
  return std::any_of(typos.begin(), typos.end(), [&](auto& t) { return t.term == term; });
}

}  // namespace

CAF_TEST(typos are corrected from 5 letters at one edit and from 8 at two) {
  // Words no dictionary has, so only the catalog's own terms can correct them.
  auto s = snapshot_of({{"Klavo", "https://a.example.com/klavo", "Klavo zorblax quintrax, by key.", {}, "call", {}}});
  auto& idx = s.search_index_of();
  CAF_CHECK(!corrects(idx, "klav", "klavo"));         // 4 letters: too short to correct
  CAF_CHECK(corrects(idx, "klavu", "klavo"));         // 5 letters, one edit
  CAF_CHECK(!corrects(idx, "kluvu", "klavo"));        // 5 letters, two edits
  CAF_CHECK(corrects(idx, "zorbalx", "zorblax"));     // 7 letters, one transposition
  CAF_CHECK(!corrects(idx, "zarblex", "zorblax"));    // 7 letters, two edits
  CAF_CHECK(corrects(idx, "quantrex", "quintrax"));   // 8 letters, two edits
  CAF_CHECK(!corrects(idx, "quantrez", "quintrax"));  // 8 letters, three edits
  // A word the catalog has is no typo, and neither is one whose translation it has.
  CAF_CHECK(terms_by(search::expand("klavo", &idx), search::expansion::typo).empty());
  CAF_CHECK(terms_by(search::expand("clave", &idx), search::expansion::typo).empty());  // Spanish: key
  // Without a catalog, nothing to correct from.
  CAF_CHECK(terms_by(search::expand("klavu", nullptr), search::expansion::typo).empty());
  auto hits = idx.rank(search::expand("quantrex zorbalx", &idx));
  CAF_REQUIRE_EQUAL(hits.size(), 1u);
}

CAF_TEST(a word typed outweighs its synonyms which outweigh its hypernyms and typos) {
  auto q = search::expand("snow", nullptr);
  auto in = [&](search::expansion via, float low, float high) {
    auto terms = terms_by(q, via);
    return !terms.empty() && std::all_of(terms.begin(), terms.end(), [&](auto& t) { return t.weight > low && t.weight <= high; });
  };
  CAF_CHECK(in(search::expansion::typed, 0.99f, 1.0f));
  CAF_CHECK(in(search::expansion::synonym, 0.5f, 0.6f));
  CAF_CHECK(in(search::expansion::hypernym, 0.3f, 0.4f));
  auto typo = search::expand("klavu", nullptr);
  CAF_CHECK(terms_by(typo, search::expansion::typo).empty());
  // Three listings the same but for the word: the one with the word typed first, then its
  // synonym's, then its hypernym's.
  auto s = snapshot_of({{"Report", "https://a.example.com/x", "A precipitation report for a city.", {}, "call", {}},
                        {"Report", "https://b.example.com/x", "A snowfall report for a city.", {}, "call", {}},
                        {"Report", "https://c.example.com/x", "A snow report for a city.", {}, "call", {}}});
  auto& idx = s.search_index_of();
  auto hits = idx.rank(search::expand("snow", &idx));
  CAF_REQUIRE_EQUAL(hits.size(), 3u);
  CAF_CHECK_EQUAL(hits[0].position, 2u);
  CAF_CHECK_EQUAL(hits[1].position, 1u);
  CAF_CHECK_EQUAL(hits[2].position, 0u);
  // A word's best term counts, not the sum of its terms: in a listing with the word and its
  // synonym, the word alone scores, and its score is the listing's.
  auto both = snapshot_of({{"Snow", "https://b.example.com/x", "Snow and snowfall.", {}, "call", {}}});
  auto& both_idx = both.search_index_of();
  auto q_snow = search::expand("snow", &both_idx);
  auto expanded = both_idx.rank(q_snow);
  auto why = both_idx.explain(q_snow, 0);
  CAF_REQUIRE_EQUAL(expanded.size(), 1u);
  CAF_REQUIRE_EQUAL(why.size(), 1u);
  CAF_CHECK_EQUAL(why[0].term->term, "snow");
  CAF_CHECK_EQUAL(why[0].score, expanded[0].score);
  auto literal = both_idx.rank(search::literal("snow"));
  CAF_REQUIRE_EQUAL(literal.size(), 1u);
  CAF_CHECK_EQUAL(literal[0].score, expanded[0].score);
}

CAF_TEST(a search explains which words matched which fields through which expansion) {
  auto s = snapshot_of(catalog_rows);
  routes::cursor_signer signer{"0123456789abcdef0123456789abcdef"};
  auto req = routes::parse_search_request("query=is+it+going+to+snow+in+Denver&explain=1&limit=3", signer, 1000);
  CAF_REQUIRE(req);
  CAF_CHECK(req->explain);
  auto body = boost::json::parse(routes::render_search(s, *req, signer, 1000)).as_object();
  auto& resources = body.at("resources").as_array();
  auto& explain = body.at("explain").as_array();
  CAF_REQUIRE_EQUAL(explain.size(), resources.size());
  CAF_REQUIRE_GREATER(explain.size(), 0u);
  bool snow_to_weather = false;
  for (std::size_t i = 0; i < explain.size(); ++i) {
    auto& e = explain[i].as_object();
    CAF_CHECK_EQUAL(e.at("resource"), resources[i].at("resource"));
    for (auto& m : e.at("matches").as_array()) {
      auto& match = m.as_object();
      CAF_CHECK(!match.at("fields").as_array().empty());
      snow_to_weather = snow_to_weather || (match.at("word") == "snow" && match.at("term") == "weather" && match.at("via") == "hypernym");
    }
  }
  CAF_CHECK(snow_to_weather);
  // Without explain, no explanation; a value other than 1, 0, true or false is refused.
  auto plain = routes::parse_search_request("query=snow", signer, 1000);
  CAF_REQUIRE(plain);
  CAF_CHECK(!boost::json::parse(routes::render_search(s, *plain, signer, 1000)).as_object().contains("explain"));
  auto bad = routes::parse_search_request("query=snow&explain=yes", signer, 1000);
  CAF_REQUIRE(!bad);
  CAF_CHECK_EQUAL(bad.error().code, errc::invalid_filter);
  CAF_CHECK_EQUAL(bad.error().field, "explain");
}

extern "C" const unsigned char z402_lexicon_bytes[];
extern "C" const unsigned char z402_lexicon_end[];

CAF_TEST(a lexicon is read only when every part of it is inside it) {
  const auto size = static_cast<std::size_t>(z402_lexicon_end - z402_lexicon_bytes);
  std::vector<std::uint32_t> words((size + 3) / 4);  // 4-byte aligned, as the library's is
  auto* bytes = reinterpret_cast<unsigned char*>(words.data());
  std::memcpy(bytes, z402_lexicon_bytes, size);
  auto intact = search::lexicon::read(bytes, size);
  CAF_REQUIRE(intact);
  std::vector<search::related_term> related;
  intact->related(search::stem("snow"), related);
  CAF_CHECK(!related.empty());
  CAF_CHECK(intact->is_stopword("the", search::language::english));
  CAF_CHECK(!intact->sources().empty());
  search::lexicon_format::header h;
  std::memcpy(&h, bytes, sizeof h);
  auto refused = [&](auto change, const char* why) {
    std::vector<std::uint32_t> copy = words;
    auto* b = reinterpret_cast<unsigned char*>(copy.data());
    auto n = change(b, size);
    auto read = search::lexicon::read(b, n);
    if (read) return false;
    CAF_CHECK_EQUAL(read.error().code, errc::corrupt);
    return read.error().reason == why;
  };
  CAF_CHECK(refused([](auto*, std::size_t) { return std::size_t{16}; }, "shorter than its header"));
  CAF_CHECK(refused([](auto* b, std::size_t n) { return b[0] = 'Z', n; }, "not a lexicon"));
  CAF_CHECK(refused([](auto* b, std::size_t n) { return b[8] = 99, n; }, "a format this library does not read"));
  CAF_CHECK(refused([](auto*, std::size_t n) { return n - 4; }, "its size is not the one it was written with"));
  auto english = h.tables[search::lexicon_format::english_related];
  CAF_CHECK(refused([&](auto* b, std::size_t n) {
    std::uint32_t past = h.terms.count;  // a key naming no term
    std::memcpy(b + english.keys.offset, &past, 4);
    return n;
  }, "a term lies outside it"));
  CAF_CHECK(refused([&](auto* b, std::size_t n) {
    search::lexicon_format::header broken = h;
    broken.tables[0].entries.count += 1;  // past the starts' end
    std::memcpy(b, &broken, sizeof broken);
    return n;
  }, "a table lies outside it"));
}
