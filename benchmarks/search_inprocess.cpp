// The search's own cost, in process and uncached (no HTTP, no response cache: every query is
// ranked): the benchmark's catalog at 1,024, 4,096 and 16,384 items, queries an agent would
// send (words of the listings, other words, typos, Spanish, Portuguese, French), a page of 10
// spread by origin as GET /discovery/search takes it. Each size twice: the query expanded
// (search::expand, what the server does) and its typed words alone (search::literal). Then
// the lexicon: its bytes, the time to check it, and the resident memory a run of expanded
// queries adds before any catalog is made. Prints JSON on one line.
//   z402-bench-search [QUERIES_PER_SIZE]
#include "load/catalog_gen.hpp"
#include "resident_memory.hpp"
#include "routes/search_query.hpp"
#include "search/lexicon.hpp"
#include "z402/search/ranking.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

using namespace z402;
using clock_type = std::chrono::steady_clock;

extern "C" const unsigned char z402_lexicon_bytes[];
extern "C" const unsigned char z402_lexicon_end[];

namespace {

const std::vector<const char*> queries = {
    "weather forecast for a city", "turn a web page into markdown", "translate text", "geocode an address",
    "is it going to snow this weekend", "give me a synopsis of this report", "pronounce these sentences out loud",
    "tranlsation of a document", "recieve the text of an image", "sumarize an article",
    "traducir un texto al francés", "previsão do tempo para amanhã", "résumer un long article", "convertir des dollars en euros",
};

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
}

struct catalog {
  std::vector<search::document> docs;
  std::unique_ptr<search::index> idx;
};

catalog make_catalog(std::size_t items) {
  auto terms = config::default_rail_terms();
  bench::catalog_shape shape{items / 128, 128, 0};
  catalog c;
  c.docs.reserve(items);
  for (std::size_t p = 0; p < shape.providers; ++p)
    for (std::size_t i = 0; i < shape.items; ++i) c.docs.push_back(search::make_document(bench::make_item(terms, shape, p, i), "GET"));
  std::vector<const search::document*> pointers;
  std::vector<std::uint64_t> keys;
  for (std::size_t k = 0; k < c.docs.size(); ++k) pointers.push_back(&c.docs[k]), keys.push_back(k);
  c.idx = std::make_unique<search::index>(std::move(pointers), std::move(keys));
  return c;
}

/// Queries per second and p50/p99 microseconds of `rounds` queries, each made and ranked.
boost::json::object run(const search::index& idx, std::size_t rounds, bool expanded) {
  std::vector<double> us;
  us.reserve(rounds);
  std::size_t results = 0;
  const auto start = clock_type::now();
  for (std::size_t n = 0; n < rounds; ++n) {
    const auto t0 = clock_type::now();
    auto text = queries[n % queries.size()];
    auto q = expanded ? search::expand(text, &idx) : search::literal(text);
    results += search::page_of(idx, q, nullptr, routes::results_per_origin, 0, 10).positions.size();
    us.push_back(std::chrono::duration<double, std::micro>(clock_type::now() - t0).count());
  }
  const double seconds = std::chrono::duration<double>(clock_type::now() - start).count();
  return {{"queriesPerSecond", static_cast<double>(rounds) / seconds}, {"p50us", percentile(us, 0.5)},
          {"p99us", percentile(us, 0.99)}, {"resultsPerQuery", static_cast<double>(results) / static_cast<double>(rounds)}};
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t rounds = argc > 1 ? std::stoul(argv[1]) : 20000;
  boost::json::object out;
  // The lexicon: checked once (what the library does at its first search), its pages touched
  // by the queries below.
  const auto rss_before = bench::rss_kb();
  const auto t0 = clock_type::now();
  auto lex = search::lexicon::read(z402_lexicon_bytes, static_cast<std::size_t>(z402_lexicon_end - z402_lexicon_bytes));
  const double check_ms = std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
  if (!lex) {
    std::cerr << "z402-bench-search: " << lex.error().message() << "\n";
    return 1;
  }
  // The pages of the lexicon the queries read (it is the library's read-only data, shared by
  // every process that maps it): the resident growth from expanding them all, no catalog yet.
  for (int k = 0; k < 100; ++k)
    for (auto text : queries) search::expand(text, nullptr);
  out["lexicon"] = {{"bytes", lex->bytes()}, {"checkMs", check_ms}, {"sources", lex->sources()}, {"rssKbByQueries", bench::rss_kb() - rss_before}};
  boost::json::array sizes;
  for (std::size_t items : {1024u, 4096u, 16384u}) {
    auto c = make_catalog(items);
    run(*c.idx, rounds / 10, true);  // warm: the lexicon's pages, the thread's buffers
    sizes.push_back({{"items", items}, {"expanded", run(*c.idx, rounds, true)}, {"typedOnly", run(*c.idx, rounds, false)}});
  }
  out["sizes"] = std::move(sizes);
  std::cout << boost::json::serialize(out) << std::endl;
}
