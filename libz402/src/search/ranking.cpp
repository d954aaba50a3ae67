#include "z402/search/ranking.hpp"

#include "z402/search/tokenizer.hpp"
#include "z402/wire/json.hpp"
#include "z402/wire/url.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

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
  origin_ids_.resize(docs_.size());
  std::unordered_map<std::string_view, std::uint32_t> origin_numbers;
  for (std::uint32_t i = 0; i < docs_.size(); ++i) {
    auto& d = *docs_[i];
    origin_ids_[i] = origin_numbers.emplace(d.origin, static_cast<std::uint32_t>(origin_numbers.size())).first->second;
    double honesty = 1.0;
    for (std::size_t f = 0; f < field_count; ++f)
      if (d.length[f] >= judged_length)
        honesty = std::min(honesty, static_cast<double>(d.term_count(static_cast<field>(f))) / d.length[f] / honest_distinct_share);
    // Each field's terms are distinct within it; a term in several fields has one posting whose
    // weighted frequency adds up their weights, in field order. It stands in the posting's
    // contribution until the term's document frequency is known below.
    for (std::size_t f = 0; f < field_count; ++f) {
      double norm = 1.0 - length_norm[f] + length_norm[f] * d.length[f] / average[f];
      const auto field_weight = static_cast<float>(weight[f] * honesty * honesty / norm);
      for (std::size_t k = 0; k < d.term_count(static_cast<field>(f)); ++k) {
        auto& list = postings_[d.term(static_cast<field>(f), k)].list;
        if (!list.empty() && list.back().doc == i) list.back().contribution += field_weight;
        else list.push_back({i, field_weight});
      }
    }
  }
  origin_count_ = origin_numbers.size();
  const double n = static_cast<double>(docs_.size());
  postings_.shrink_to_fit();
  for (auto& [term, t] : postings_.entries()) {
    const double df = static_cast<double>(t.list.size());
    const double idf = std::log(1.0 + (n - df + 0.5) / (df + 0.5));
    t.block_best.assign((t.list.size() + block - 1) / block, 0.0f);
    for (std::size_t k = 0; k < t.list.size(); ++k) {
      const double wtf = t.list[k].contribution;
      auto& c = t.list[k].contribution;
      c = static_cast<float>(idf * wtf * (k1 + 1.0) / (k1 + wtf));
      t.block_best[k / block] = std::max(t.block_best[k / block], c);
      t.best = std::max(t.best, c);
    }
  }
}

std::vector<const index::term_postings*> index::terms_of(const std::vector<std::string>& query_terms) const {
  std::vector<std::string> distinct = query_terms;
  sort_distinct(distinct);
  std::vector<const term_postings*> terms;
  for (auto& term : distinct)
    if (auto* found = postings_.find(term)) terms.push_back(found);
  return terms;
}

std::vector<hit> index::rank(const std::vector<std::string>& query_terms) const {
  // A dense accumulator per thread: no hashing and no allocation per matching document. It is
  // all zeros between calls (the touched entries are reset below).
  thread_local std::vector<double> scores;
  thread_local std::vector<std::uint32_t> touched;
  if (scores.size() < docs_.size()) scores.resize(docs_.size(), 0.0);
  touched.clear();
  for (auto* t : terms_of(query_terms))
    for (auto& p : t->list) {
      if (scores[p.doc] == 0.0) touched.push_back(p.doc);
      scores[p.doc] += p.contribution;
    }
  std::vector<hit> hits;
  hits.reserve(touched.size());
  for (auto doc : touched) {
    hits.push_back({doc, scores[doc]});
    scores[doc] = 0.0;
  }
  std::sort(hits.begin(), hits.end(), ranks_before);
  return hits;
}

std::vector<hit> index::top(const std::vector<std::string>& query_terms, std::size_t k,
                            const std::vector<std::uint32_t>* allowed) const {
  std::vector<hit> best;  // a heap with the hit that ranks last on top
  auto before = [](const hit& a, const hit& b) { return ranks_before(a, b); };  // inlined, unlike a function pointer
  auto terms = terms_of(query_terms);
  const auto m = terms.size();
  if (m == 0 || k == 0 || (allowed && allowed->empty())) return best;
  // Documents come in listing order, so one that scores no more than the k-th best loses to
  // every hit held and to every hit taken later (those score more): skipping it is exact, ties
  // included. A bound is added up in the order scores are (the terms' sorted order) from parts
  // each at least the document's, so it is never below the score, to the last bit.
  auto sum = [](const std::vector<double>& parts) {
    double total = 0;
    for (auto part : parts) total += part;
    return total;
  };
  // Terms by their best contribution, least first: a prefix of them whose bests add up to no
  // more than the k-th best cannot place a document on their own, so only the others' lists
  // (the essential ones) propose documents; the prefix's are looked up for those.
  std::vector<std::size_t> order(m);
  for (std::size_t i = 0; i < m; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return terms[a]->best < terms[b]->best; });
  std::vector<double> cap(m, 0.0);  // the best of each non-essential term, 0 for the essential ones
  std::vector<double> bound(m);
  std::vector<std::size_t> at(m, 0);  // each term's next posting (indexed as `terms`)
  std::vector<double> parts(m);
  std::size_t essential = 0, allowed_at = 0;
  double kth = 0;  // the k-th best score, once `best` holds k
  std::uint32_t unskippable_to = 0;
  double unskippable_below = -1;
  std::size_t postings = 0;  // at least the matches: no more room than they can fill
  for (auto* t : terms) postings += t->list.size();
  best.reserve(std::min(k, postings));
  auto current = [&](std::size_t i) { return at[i] < terms[i]->list.size() ? terms[i]->list[at[i]].doc : UINT32_MAX; };
  for (;;) {
    std::uint32_t doc = UINT32_MAX;
    for (auto j = essential; j < m; ++j) doc = std::min(doc, current(order[j]));
    if (doc == UINT32_MAX) break;
    // A stretch found unskippable stays so until the k-th best changes.
    if (best.size() == k && (doc > unskippable_to || kth != unskippable_below)) {
      // Up to the end of the shortest current block, no document can score more than this.
      bound = cap;
      std::uint32_t end = UINT32_MAX;
      for (auto j = essential; j < m; ++j) {
        auto i = order[j];
        auto& list = terms[i]->list;
        if (at[i] >= list.size()) continue;
        auto b = at[i] / block;
        bound[i] = terms[i]->block_best[b];
        end = std::min(end, list[std::min(list.size(), (b + 1) * block) - 1].doc);
      }
      if (sum(bound) <= kth) {
        for (auto j = essential; j < m; ++j)
          for (auto i = order[j]; at[i] < terms[i]->list.size() && terms[i]->list[at[i]].doc <= end;) ++at[i];
        continue;
      }
      unskippable_to = end;
      unskippable_below = kth;
    }
    std::fill(parts.begin(), parts.end(), 0.0);
    for (auto j = essential; j < m; ++j)
      if (auto i = order[j]; current(i) == doc) parts[i] = terms[i]->list[at[i]++].contribution;
    if (allowed) {
      allowed_at = static_cast<std::size_t>(std::lower_bound(allowed->begin() + static_cast<std::ptrdiff_t>(allowed_at), allowed->end(), doc) -
                                            allowed->begin());
      if (allowed_at == allowed->size() || (*allowed)[allowed_at] != doc) continue;
    }
    for (std::size_t j = 0; j < essential; ++j) {
      auto i = order[j];
      auto& list = terms[i]->list;
      auto it = std::lower_bound(list.begin() + static_cast<std::ptrdiff_t>(at[i]), list.end(), doc,
                                 [](const posting& p, std::uint32_t d) { return p.doc < d; });
      at[i] = static_cast<std::size_t>(it - list.begin());
      if (it != list.end() && it->doc == doc) parts[i] = it->contribution;
    }
    // Added up in the terms' sorted order, as rank() does, so a score is the same double there.
    const double score = sum(parts);
    if (best.size() < k) {
      best.push_back({doc, score});
      std::push_heap(best.begin(), best.end(), before);
    } else if (score > kth) {
      std::pop_heap(best.begin(), best.end(), before);
      best.back() = {doc, score};
      std::push_heap(best.begin(), best.end(), before);
    } else {
      continue;
    }
    if (best.size() == k) {
      kth = best.front().score;
      for (; essential < m; ++essential) {
        bound = cap;
        bound[order[essential]] = terms[order[essential]]->best;
        if (sum(bound) > kth) break;
        cap.swap(bound);
      }
    }
  }
  std::sort_heap(best.begin(), best.end(), before);
  return best;
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

ranked_page page_of(const index& idx, const std::vector<std::string>& query_terms, const std::vector<std::uint32_t>* allowed,
                    std::size_t per_origin, std::size_t offset, std::size_t limit) {
  ranked_page page;
  const auto want = offset + limit;
  // Hits seen per origin: all zeros between calls (reset below), so no allocation or clearing
  // in proportion to the catalog.
  thread_local std::vector<std::uint32_t> seen;
  if (seen.size() < idx.origins()) seen.resize(idx.origins(), 0);
  // The best few times the page's end, then twice as many while origins run short of it.
  for (auto k = std::max<std::size_t>(64, 4 * want);; k *= 2) {
    auto hits = idx.top(query_terms, k, allowed);
    const bool all = hits.size() < k;
    std::vector<std::size_t> kept;  // indexes into `hits` of the hits that keep their place
    std::size_t scanned = 0;
    for (; scanned < hits.size() && kept.size() < want; ++scanned)
      if (++seen[idx.origin_of(hits[scanned].position)] <= per_origin) kept.push_back(scanned);
    for (std::size_t i = 0; i < scanned; ++i) seen[idx.origin_of(hits[i].position)] = 0;
    if (kept.size() < want && !all) continue;
    page.more = hits.size() > want;
    const auto end = std::min(want, hits.size());
    if (offset >= end) return page;
    for (auto i = offset; i < std::min(end, kept.size()); ++i) page.positions.push_back(hits[kept[i]].position);
    if (kept.size() >= end) return page;
    // Origins ran short and `hits` is the whole ranking: the rest of the page comes from the
    // hits that moved, in rank order.
    std::vector<bool> is_kept(hits.size(), false);
    for (auto i : kept) is_kept[i] = true;
    auto moved_skip = offset > kept.size() ? offset - kept.size() : 0;
    for (std::size_t i = 0; i < hits.size() && page.positions.size() < end - offset; ++i) {
      if (is_kept[i]) continue;
      if (moved_skip > 0) {
        --moved_skip;
        continue;
      }
      page.positions.push_back(hits[i].position);
    }
    return page;
  }
}

}  // namespace z402::search
