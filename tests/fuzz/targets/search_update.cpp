// Sellers' text drives the search index: a version's index made from the last one's
// (search::index::updated) must find exactly what one built whole finds. Each input line is one
// catalog version: its first byte says what changed (an item's description rewritten with the
// rest of the line, an item added at the end, the last item gone, an item gone from the middle),
// and the line's words join the queries. The last version's documents are freed once the next
// index is made, as the catalog frees them, so a term left pointing into them is a use after
// free under ASan.
#include "target.hpp"

#include "z402/search/ranking.hpp"

#include <boost/json/object.hpp>

#include <memory>
#include <string>
#include <vector>

namespace {

using namespace z402;

struct listing {
  std::vector<std::shared_ptr<const search::document>> docs;
  std::vector<std::uint64_t> keys;

  std::vector<const search::document*> pointers() const {
    std::vector<const search::document*> out;
    for (auto& d : docs) out.push_back(d.get());
    return out;
  }
};

std::shared_ptr<const search::document> doc_of(std::uint64_t key, std::string_view description) {
  boost::json::object fields{{"serviceName", key % 3 ? "Weather" : "Forecast"},
                             {"resource", "https://o" + std::to_string(key % 5) + ".example.com/r" + std::to_string(key)},
                             {"description", description}};
  return std::make_shared<const search::document>(search::make_document(fields, "GET"));
}

bool same(const std::vector<search::hit>& a, const std::vector<search::hit>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].position != b[i].position || a[i].score != b[i].score) return false;
  return true;
}

}  // namespace

Z402_FUZZ_TARGET(search_update) {
  static const char* words[] = {"weather forecast city", "tides and wind", "city weather", "markdown page", "forecast"};
  listing now;
  std::uint64_t next_key = 1;
  for (; next_key <= 24; ++next_key) {
    now.docs.push_back(doc_of(next_key, words[next_key % 5]));
    now.keys.push_back(next_key);
  }
  auto index = std::make_unique<search::index>(now.pointers(), now.keys);
  std::vector<std::string> queries = {"weather", "forecast city", "tides", "example"};
  auto text = fuzz::text_of(data, size);
  for (std::size_t line = 0, versions = 0; line < text.size() && versions < 64; ++versions) {
    auto end = text.find('\n', line);
    if (end == std::string_view::npos) end = text.size();
    auto op = text.substr(line, end - line);
    line = end + 1;
    if (op.empty()) continue;
    const auto kind = static_cast<unsigned char>(op[0]) % 4;
    const auto rest = op.substr(1);
    const auto at = rest.empty() || now.docs.empty() ? 0 : static_cast<unsigned char>(rest[0]) % now.docs.size();
    auto last = now;  // the last version's documents, alive until the next index is made
    if (kind == 0 && !now.docs.empty()) now.docs[at] = doc_of(now.keys[at], rest);
    if (kind == 1) {
      now.docs.push_back(doc_of(next_key, rest));
      now.keys.push_back(next_key++);
    }
    if (kind == 2 && !now.docs.empty()) now.docs.pop_back(), now.keys.pop_back();
    if (kind == 3 && !now.docs.empty()) {
      now.docs.erase(now.docs.begin() + static_cast<std::ptrdiff_t>(at));
      now.keys.erase(now.keys.begin() + static_cast<std::ptrdiff_t>(at));
    }
    if (queries.size() < 16) queries.emplace_back(rest);
    auto docs = now.pointers();
    auto keys = now.keys;
    auto updated = search::index::updated(*index, std::move(docs), std::move(keys));
    search::index whole{now.pointers(), now.keys};
    index = std::make_unique<search::index>(updated ? std::move(*updated) : search::index{now.pointers(), now.keys});
    last = {};
    for (auto& query : queries) {
      auto terms = search::expand(query, &whole);  // typo corrections from the catalog's own terms
      fuzz::require(same(index->rank(terms), whole.rank(terms)), "an updated index ranks as one built whole");
      fuzz::require(same(index->top(terms, 5), whole.top(terms, 5)), "an updated index's best hits are a whole one's");
      fuzz::require(search::page_of(*index, terms, nullptr, 3, 0, 10).positions == search::page_of(whole, terms, nullptr, 3, 0, 10).positions,
                    "an updated index's page spreads origins as a whole one's");
    }
  }
  return 0;
}
