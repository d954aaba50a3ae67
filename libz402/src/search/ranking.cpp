#include "z402/search/ranking.hpp"

#include "z402/search/tokenizer.hpp"
#include "z402/wire/json.hpp"
#include "z402/wire/url.hpp"

#include <algorithm>
#include <cmath>

namespace z402::search {
namespace {

// Field weights and length normalisation: the route and name say most about what an item
// does; a description may be long, so its length counts most.
constexpr std::array<double, field_count> weight{3.0, 3.0, 2.0, 2.0, 1.0, 1.0, 1.0};
constexpr std::array<double, field_count> length_norm{0.3, 0.3, 0.75, 0.3, 0.5, 0.0, 0.0};
constexpr double k1 = 1.2;
// Below this share of distinct terms a field counts as stuffed, and the whole listing's weight
// falls with the square of the share: stuffing one field must not let the others win.
constexpr double honest_distinct_share = 0.7;
constexpr std::size_t judged_length = 4;  // shorter fields are too short to judge

void add_terms(std::vector<std::string>& into, std::string_view text) {
  auto more = tokenize(text);
  into.insert(into.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
}

void add_keys(std::vector<std::string>& into, const boost::json::value* v) {
  if (auto* obj = v ? v->if_object() : nullptr)
    for (auto& kv : *obj) add_terms(into, kv.key());
}


// Input parameter names: from the example input and from the schema of the input.
void add_parameters(std::vector<std::string>& into, const boost::json::object& fields) {
  auto* bazaar = wire::find_path(fields, {"extensions", "bazaar"});
  auto* b = bazaar ? bazaar->if_object() : nullptr;
  if (!b) return;
  for (auto part : {"queryParams", "body", "pathParams"}) {
    add_keys(into, wire::find_path(*b, {"info", "input", part}));
    add_keys(into, wire::find_path(*b, {"schema", "properties", "input", "properties", part, "properties"}));
  }
  add_keys(into, wire::find_path(*b, {"info", "input", "inputSchema", "properties"}));
}

void sort_distinct(std::vector<std::string>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

}  // namespace

document make_document(const boost::json::object& fields, std::string_view selector) {
  document d;
  std::array<std::vector<std::string>, field_count> terms;
  auto text = [&](const char* key) -> std::string_view {
    auto* s = wire::find_string(fields, key);
    return s ? std::string_view{*s} : std::string_view{};
  };
  add_terms(terms[name], text("serviceName"));
  if (auto url = wire::parse_absolute_url(text("resource"))) {
    d.origin = wire::origin_of(*url);
    add_terms(terms[route], url->host);
    add_terms(terms[route], url->path);
  }
  add_terms(terms[route], selector);
  add_terms(terms[description], text("description"));
  add_parameters(terms[params], fields);
  if (auto* t = fields.if_contains("tags"); t && t->is_array())
    for (auto& tag : t->as_array())
      if (tag.is_string()) add_terms(terms[tags], tag.as_string());
  if (auto* u = wire::find_path(fields, {"extensions", "z402", "unit"}); u && u->is_string()) add_terms(terms[unit], u->as_string());
  add_terms(terms[mime], text("mimeType"));
  for (std::size_t f = 0; f < field_count; ++f) {
    d.length[f] = static_cast<std::uint16_t>(std::min<std::size_t>(terms[f].size(), 65535));
    sort_distinct(terms[f]);
    d.first[f] = static_cast<std::uint32_t>(d.ends.size());
    for (auto& t : terms[f]) {
      d.text += t;
      d.ends.push_back(static_cast<std::uint32_t>(d.text.size()));
    }
  }
  d.first[field_count] = static_cast<std::uint32_t>(d.ends.size());
  d.text.shrink_to_fit();
  d.ends.shrink_to_fit();
  return d;
}

bool document::has(field f, std::string_view word) const {
  std::size_t lo = 0, hi = term_count(f);
  while (lo < hi) {
    auto mid = (lo + hi) / 2;
    auto t = term(f, mid);
    if (t == word) return true;
    if (t < word) lo = mid + 1;
    else hi = mid;
  }
  return false;
}

index::index(std::vector<const document*> docs) : docs_(std::move(docs)) {
  std::array<double, field_count> average{};
  for (auto* d : docs_)
    for (std::size_t f = 0; f < field_count; ++f) average[f] += d->length[f];
  for (auto& a : average) a = docs_.empty() ? 1.0 : std::max(1.0, a / docs_.size());
  field_weight_.resize(docs_.size());
  origin_ids_.resize(docs_.size());
  std::unordered_map<std::string_view, std::uint32_t> origin_numbers;
  for (std::uint32_t i = 0; i < docs_.size(); ++i) {
    auto& d = *docs_[i];
    origin_ids_[i] = origin_numbers.emplace(d.origin, static_cast<std::uint32_t>(origin_numbers.size())).first->second;
    double honesty = 1.0;
    for (std::size_t f = 0; f < field_count; ++f)
      if (d.length[f] >= judged_length)
        honesty = std::min(honesty, static_cast<double>(d.term_count(static_cast<field>(f))) / d.length[f] / honest_distinct_share);
    std::unordered_map<std::string_view, std::uint8_t> masks;
    for (std::size_t f = 0; f < field_count; ++f) {
      double norm = 1.0 - length_norm[f] + length_norm[f] * d.length[f] / average[f];
      field_weight_[i][f] = static_cast<float>(weight[f] * honesty * honesty / norm);
      for (std::size_t k = 0; k < d.term_count(static_cast<field>(f)); ++k)
        masks[d.term(static_cast<field>(f), k)] |= static_cast<std::uint8_t>(1u << f);
    }
    for (auto& [term, mask] : masks) postings_[std::string{term}].push_back({i, mask});
  }
  origin_count_ = origin_numbers.size();
}

std::vector<hit> index::rank(const std::vector<std::string>& query_terms) const {
  auto hits = score(query_terms);
  std::sort(hits.begin(), hits.end(), ranks_before);
  return hits;
}

std::vector<hit> index::score(const std::vector<std::string>& query_terms) const {
  std::vector<std::string> distinct = query_terms;
  sort_distinct(distinct);
  // A dense accumulator per thread: no hashing and no allocation per matching document. It is
  // all zeros between calls (the touched entries are reset below), so a query costs its
  // matches, not the catalog's size.
  thread_local std::vector<double> scores;
  thread_local std::vector<std::uint32_t> touched;
  if (scores.size() < docs_.size()) scores.resize(docs_.size(), 0.0);
  touched.clear();
  const double n = static_cast<double>(docs_.size());
  for (auto& term : distinct) {
    auto found = postings_.find(term);
    if (found == postings_.end()) continue;
    const double df = static_cast<double>(found->second.size());
    const double idf = std::log(1.0 + (n - df + 0.5) / (df + 0.5));
    for (auto& p : found->second) {
      double wtf = 0;
      for (std::size_t f = 0; f < field_count; ++f)
        if (p.fields & (1u << f)) wtf += field_weight_[p.doc][f];
      if (scores[p.doc] == 0.0) touched.push_back(p.doc);
      scores[p.doc] += idf * wtf * (k1 + 1.0) / (k1 + wtf);
    }
  }
  std::vector<hit> hits;
  hits.reserve(touched.size());
  for (auto doc : touched) {
    hits.push_back({doc, scores[doc]});
    scores[doc] = 0.0;
  }
  return hits;
}

bool ranks_before(const hit& a, const hit& b) { return a.score != b.score ? a.score > b.score : a.position < b.position; }

std::vector<hit> spread_origins(const index& idx, std::vector<hit> hits, std::size_t per_origin) {
  std::vector<std::uint32_t> seen(idx.origins(), 0);
  std::vector<hit> kept, moved;
  kept.reserve(hits.size());
  for (auto& h : hits) (++seen[idx.origin_of(h.position)] <= per_origin ? kept : moved).push_back(h);
  kept.insert(kept.end(), moved.begin(), moved.end());
  return kept;
}

std::vector<std::size_t> page_of(const index& idx, std::vector<hit> hits, std::size_t per_origin, std::size_t offset,
                                 std::size_t limit) {
  auto want = std::min(hits.size(), offset + limit);
  if (offset >= want) return {};
  // Hits seen per origin: all zeros between calls (reset below), so no allocation or clearing
  // in proportion to the catalog.
  thread_local std::vector<std::uint32_t> seen;
  if (seen.size() < idx.origins()) seen.resize(idx.origins(), 0);
  std::vector<std::size_t> kept;  // indexes into the sorted prefix of `hits`, in rank order
  std::size_t sorted = 0, scanned = 0;
  // Sort the next stretch of the ranking, then scan it for hits that keep their place, until
  // the page is full of them or the ranking runs out.
  for (auto k = std::min(hits.size(), std::max<std::size_t>(64, 4 * want)); kept.size() < want && sorted < hits.size();
       k = std::min(hits.size(), 2 * k)) {
    std::partial_sort(hits.begin() + static_cast<std::ptrdiff_t>(sorted), hits.begin() + static_cast<std::ptrdiff_t>(k), hits.end(),
                      ranks_before);
    sorted = k;
    for (; scanned < sorted && kept.size() < want; ++scanned)
      if (++seen[idx.origin_of(hits[scanned].position)] <= per_origin) kept.push_back(scanned);
  }
  for (std::size_t i = 0; i < scanned; ++i) seen[idx.origin_of(hits[i].position)] = 0;
  std::vector<std::size_t> page;
  for (auto i = offset; i < std::min(want, kept.size()); ++i) page.push_back(hits[kept[i]].position);
  if (kept.size() >= want) return page;
  // Origins ran short: the rest of the page comes from the hits that moved, in rank order (the
  // whole ranking is sorted and scanned by now).
  std::vector<bool> is_kept(hits.size(), false);
  for (auto i : kept) is_kept[i] = true;
  auto moved_skip = offset > kept.size() ? offset - kept.size() : 0;
  for (std::size_t i = 0; i < hits.size() && page.size() < want - offset; ++i) {
    if (is_kept[i]) continue;
    if (moved_skip > 0) {
      --moved_skip;
      continue;
    }
    page.push_back(hits[i].position);
  }
  return page;
}

}  // namespace z402::search
