#include "z402/search/ranking.hpp"

#include "search/lexicon.hpp"
#include "search/tokenizer.hpp"
#include "z402/wire/json.hpp"
#include "wire/url.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

namespace z402::search {
namespace {

// Field weights and length normalisation: the route and name say most about what an item
// does; a description may be long, so its length counts most.
constexpr std::array<double, field_count> weight{3.0, 3.0, 2.0, 2.0, 1.0, 1.0, 1.0};
constexpr std::array<double, field_count> length_norm{0.3, 0.3, 0.75, 0.3, 0.5, 0.0, 0.0};
// The length a field is normalised against: a typical listing's (terms with their repeats),
// between the averages of the search suite's listings (name 1.9, route 4.5, description 7.4,
// parameters 1.6, tags 1.8) and of the benchmark's catalog (2, 7, 16.4, 10, 2). BM25F's is
// the catalog's average, which every item change moves, and with it every weight of every
// document: a fixed one keeps a document's weights its own, so a change redoes only the
// changed documents' postings (index::updated).
constexpr std::array<double, field_count> typical_length{2.0, 6.0, 10.0, 4.0, 2.0, 1.0, 2.0};
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

// A text may say a thing in two words or three ("speech" and "speakers", "weather
// conditions"); past that allowance, each term that WordNet makes a synonym or a derivation of
// another term of the description or the tags is a keyword listed to be found by other words.
constexpr std::size_t allowed_related_terms = 3;
constexpr double listed_penalty = 2.0;  // the listing's honesty falls by twice the listed share

/// document::listed of the description's and tags' terms.
float listed_share(std::vector<std::string> terms) {
  sort_distinct(terms);
  if (terms.size() <= allowed_related_terms) return 0;
  auto& lex = lexicon::instance();
  std::vector<related_term> related;
  std::size_t listed = 0;
  for (auto& t : terms) {
    related.clear();
    lex.related(t, related);
    listed += std::any_of(related.begin(), related.end(), [&](const related_term& r) {
      return r.via != relation::hypernym && std::binary_search(terms.begin(), terms.end(), r.term);
    });
  }
  return listed <= allowed_related_terms ? 0.0f : static_cast<float>(listed - allowed_related_terms) / static_cast<float>(terms.size());
}

/// What each of a document's fields gives a term in it, before saturation: the field's weight
/// and length normalisation, and the document's honesty (stuffing costs the whole listing:
/// repeats in a field, or a list of words for one thing).
std::array<float, field_count> field_weights(const document& d) {
  double honesty = std::max(0.0, 1.0 - listed_penalty * d.listed);
  for (std::size_t f = 0; f < field_count; ++f)
    if (d.length[f] >= judged_length)
      honesty = std::min(honesty, static_cast<double>(d.term_count(static_cast<field>(f))) / d.length[f] / honest_distinct_share);
  std::array<float, field_count> out{};
  for (std::size_t f = 0; f < field_count; ++f)
    out[f] = static_cast<float>(weight[f] * honesty * honesty / (1.0 - length_norm[f] + length_norm[f] * d.length[f] / typical_length[f]));
  return out;
}

/// BM25F's saturation of a term's summed field weights in one document.
float saturated(float summed) {
  const double w = summed;
  return static_cast<float>(w * (k1 + 1.0) / (k1 + w));
}

/// A document's weight for each of its terms (the term in `text`), sorted by term: the fields'
/// weights of the term summed in field order, saturated, as the index's whole build does.
/// Into `out`, whose room is kept from one document to the next.
void weights_of(const document& d, std::vector<std::pair<std::string_view, float>>& out) {
  const auto fields = field_weights(d);
  // Each field's terms are sorted: merge the fields' runs.
  std::array<std::size_t, field_count> at{};
  out.clear();
  for (;;) {
    std::string_view least;
    bool any = false;
    for (std::size_t f = 0; f < field_count; ++f)
      if (at[f] < d.term_count(static_cast<field>(f))) {
        auto t = d.term(static_cast<field>(f), at[f]);
        if (!any || t < least) least = t, any = true;
      }
    if (!any) return;
    float summed = 0;
    for (std::size_t f = 0; f < field_count; ++f)
      if (at[f] < d.term_count(static_cast<field>(f)) && d.term(static_cast<field>(f), at[f]) == least) {
        summed += fields[f];
        ++at[f];
      }
    out.emplace_back(least, saturated(summed));
  }
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
  {
    auto described = terms[description];
    described.insert(described.end(), terms[tags].begin(), terms[tags].end());
    d.listed = listed_share(std::move(described));
  }
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

std::string_view document::find(field f, std::string_view word) const {
  std::size_t lo = 0, hi = term_count(f);
  while (lo < hi) {
    auto mid = (lo + hi) / 2;
    auto t = term(f, mid);
    if (t == word) return t;
    if (t < word) lo = mid + 1;
    else hi = mid;
  }
  return {};
}

std::string_view document::find(std::string_view word) const {
  for (std::size_t f = 0; f < field_count; ++f)
    if (auto t = find(static_cast<field>(f), word); !t.empty()) return t;
  return {};
}

void index::term_postings::bound() {
  best = 0;
  for (auto& p : list) best = std::max(best, p.weight);
  // A list of one block has its best for that block.
  block_best.clear();
  if (list.size() <= block) return;
  block_best.assign((list.size() + block - 1) / block, 0.0f);
  for (std::size_t k = 0; k < list.size(); ++k) block_best[k / block] = std::max(block_best[k / block], list[k].weight);
}

void index::number_origin(std::size_t position, const std::string& origin) {
  auto known = origin_numbers_.find(origin);
  if (known == origin_numbers_.end()) known = origin_numbers_.emplace(origin, static_cast<std::uint32_t>(origin_numbers_.size())).first;
  origin_ids_[position] = known->second;
}

index::index(std::vector<const document*> docs, std::vector<std::uint64_t> keys)
    : docs_(std::move(docs)), keys_(std::move(keys)) {
  // About 64 documents' terms a shard (at least two shards, at most 4,096).
  unsigned bits = 1;
  while (bits < 12 && (std::size_t{64} << bits) < docs_.size()) ++bits;
  shard_shift_ = 64 - bits;
  shards_.resize(std::size_t{1} << bits);
  origin_ids_.resize(docs_.size());
  // First into one map of lists held in place (a lookup per term of every document: the
  // shards' extra indirections cost 2.5 times as much at 65,536 items), then each list into
  // its shard. A term in several fields of a document has one posting: its fields' weights
  // are summed in it, in field order, and saturated once every document is in (as weights_of).
  term_map<term_postings> all;
  for (std::uint32_t i = 0; i < docs_.size(); ++i) {
    auto& d = *docs_[i];
    number_origin(i, d.origin);
    const auto fields = field_weights(d);
    for (std::size_t f = 0; f < field_count; ++f)
      for (std::size_t k = 0; k < d.term_count(static_cast<field>(f)); ++k) {
        auto& list = all[d.term(static_cast<field>(f), k)].list;
        if (!list.empty() && list.back().doc == i) list.back().weight += fields[f];
        else list.push_back({i, fields[f]});
      }
  }
  for (auto& [term, t] : all.entries()) {
    for (auto& p : t.list) p.weight = saturated(p.weight);
    t.bound();
    const auto h = term_shard::hash_of(term);
    auto& shard = shards_[shard_of(h)];
    if (!shard) shard = std::make_shared<term_shard>();
    shard->get(term, h) = std::make_shared<term_postings>(std::move(t));
  }
  for (auto& shard : shards_)
    if (shard) shard->shrink_to_fit();
}

const index::term_postings* index::postings_of(std::string_view term, std::size_t h) const {
  auto& shard = shards_[shard_of(h)];
  auto* found = shard ? shard->find(term, h) : nullptr;
  return found ? found->get() : nullptr;
}

// index::updated in named steps: what changed between the two listings (the terms each removed,
// added or rewritten document lost, gained or kept), then each changed term's list rewritten in
// a shard of the new index's own, every other list and shard shared with the base.
class index_update {
 public:
  index_update(const index& base, std::vector<const document*>& docs, std::vector<std::uint64_t>& keys)
      : base_(base), docs_(docs), keys_(keys) {}

  /// Walks both listings in key order. False when a document both hold moved (every posting
  /// after it would have to be renumbered) or more than an eighth of them changed: a whole
  /// build is then as cheap.
  bool diff() {
    const auto most = std::max<std::size_t>(1, std::max(docs_.size(), base_.docs_.size()) / 8);
    std::size_t changed = 0;
    for (std::size_t i = 0, j = 0; i < base_.docs_.size() || j < docs_.size();) {
      if (changed > most) return false;
      if (j == docs_.size() || (i < base_.docs_.size() && base_.keys_[i] < keys_[j])) {
        removed(i++);
        ++changed;
      } else if (i == base_.docs_.size() || keys_[j] < base_.keys_[i]) {
        added(j++);
        ++changed;
      } else {
        if (i != j) return false;
        if (base_.docs_[i] != docs_[j]) {
          changed_in_place(i);
          ++changed;
        }
        ++i, ++j;
      }
    }
    return changed <= most;
  }

  /// The new index: the base's shards and origins, each changed term's list redone.
  index finish() {
    next_.shards_ = base_.shards_;
    next_.shard_shift_ = base_.shard_shift_;
    copied_.assign(next_.shards_.size(), false);
    next_.origin_numbers_ = base_.origin_numbers_;
    next_.origin_ids_ = base_.origin_ids_;
    next_.origin_ids_.resize(docs_.size());
    for (auto j : added_) next_.number_origin(j, docs_[j]->origin);
    // Grouped by term; within a term in listing order, a document's removal before its addition.
    std::sort(changes_.begin(), changes_.end(), [](const change& a, const change& b) {
      return std::tie(a.term, a.doc, a.kind) < std::tie(b.term, b.doc, b.kind);
    });
    for (std::size_t g = 0; g < changes_.size();) {
      auto end = g;
      bool kept_only = true;
      for (; end < changes_.size() && changes_[end].term == changes_[g].term; ++end)
        kept_only = kept_only && changes_[end].kind == what::kept;
      if (kept_only) keep_list(g, end);
      else rewrite_list(g, end);
      g = end;
    }
    next_.docs_ = std::move(docs_);
    next_.keys_ = std::move(keys_);
    return std::move(next_);
  }

 private:
  enum class what { removed, added, kept };  // removals sort before additions of one document
  struct change {
    std::string_view term;  // in the document's text
    std::uint32_t doc;      // its position in the listing it is in
    float weight;           // an added posting's; 0 otherwise
    what kind;
  };

  void removed(std::size_t i) {
    weights_of(*base_.docs_[i], before_);
    for (auto& [term, weight] : before_) changes_.push_back({term, static_cast<std::uint32_t>(i), 0.0f, what::removed});
  }

  void added(std::size_t j) {
    weights_of(*docs_[j], after_);
    for (auto& [term, weight] : after_) changes_.push_back({term, static_cast<std::uint32_t>(j), weight, what::added});
    added_.push_back(static_cast<std::uint32_t>(j));
  }

  // A changed document at the same place: only the terms it lost or gained, or whose weight
  // moved, change a list (a seller's edit of one sentence leaves the lists of its other words,
  // common ones the longest, as they were). Its other terms are kept: their lists stay, but
  // one whose text is the old document's must be pointed at a document still listed.
  void changed_in_place(std::size_t i) {
    weights_of(*base_.docs_[i], before_);
    weights_of(*docs_[i], after_);
    const auto doc = static_cast<std::uint32_t>(i);
    auto a = before_.begin(), b = after_.begin();
    while (a != before_.end() || b != after_.end()) {
      if (b == after_.end() || (a != before_.end() && a->first < b->first)) {
        changes_.push_back({(a++)->first, doc, 0.0f, what::removed});
      } else if (a == before_.end() || b->first < a->first) {
        changes_.push_back({b->first, doc, b->second, what::added});
        ++b;
      } else {
        if (a->second != b->second) {
          changes_.push_back({a->first, doc, 0.0f, what::removed});
          changes_.push_back({b->first, doc, b->second, what::added});
        } else {
          changes_.push_back({a->first, doc, 0.0f, what::kept});
        }
        ++a, ++b;
      }
    }
    added_.push_back(doc);
  }

  // The shard `sh` of the new index, copied from the base's on first write.
  index::term_shard& own(std::size_t sh) {
    auto& shard = next_.shards_[sh];
    if (!copied_[sh]) {
      shard = shard ? std::make_shared<index::term_shard>(*shard) : std::make_shared<index::term_shard>();
      copied_[sh] = true;
    }
    return *shard;
  }

  // changes_[g, end): one term's, every one kept. The list is the same; its term's text moves
  // only if it was in a document that changed.
  void keep_list(std::size_t g, std::size_t end) {
    const auto term = changes_[g].term;
    const auto h = term_shard_hash(term);
    const auto sh = next_.shard_of(h);
    auto* entry = next_.shards_[sh]->entry_of(term, h);
    bool in_changed = false;
    for (auto c = g; c < end; ++c) {
      auto& text = base_.docs_[changes_[c].doc]->text;
      in_changed = in_changed || (entry->term.data() >= text.data() && entry->term.data() < text.data() + text.size());
    }
    if (!in_changed) return;
    entry = own(sh).entry_of(term, h);
    entry->term = docs_[entry->value->list.front().doc]->find(term);
  }

  // changes_[g, end): one term's. Its list is the old one without the removed documents, with
  // the added ones, in listing order.
  void rewrite_list(std::size_t g, std::size_t end) {
    const auto term = changes_[g].term;
    const auto h = term_shard_hash(term);
    auto& shard = own(next_.shard_of(h));
    auto* entry = shard.entry_of(term, h);
    auto list = std::make_shared<index::term_postings>();
    const std::vector<index::posting> none;
    auto& old = entry ? entry->value->list : none;
    list->list.reserve(old.size() + (end - g));
    std::size_t k = 0;
    for (auto c = g; c < end; ++c) {
      if (changes_[c].kind == what::kept) continue;
      for (; k < old.size() && old[k].doc < changes_[c].doc; ++k) list->list.push_back(old[k]);
      if (changes_[c].kind == what::added) list->list.push_back({changes_[c].doc, changes_[c].weight});
      else if (k < old.size() && old[k].doc == changes_[c].doc) ++k;
    }
    list->list.insert(list->list.end(), old.begin() + static_cast<std::ptrdiff_t>(k), old.end());
    if (list->list.empty()) return shard.erase(term, h);
    list->bound();
    // The term's text must be in a document of the new listing: the first that holds it.
    const auto text = docs_[list->list.front().doc]->find(term);
    if (entry) {
      entry->term = text;
      entry->value = std::move(list);
    } else {
      shard.get(text, h) = std::move(list);
    }
  }

  static std::size_t term_shard_hash(std::string_view term) { return index::term_shard::hash_of(term); }

  const index& base_;
  std::vector<const document*>& docs_;
  std::vector<std::uint64_t>& keys_;
  std::vector<change> changes_;
  std::vector<std::uint32_t> added_;  // positions in docs_ whose postings are new
  std::vector<std::pair<std::string_view, float>> before_, after_;  // one document's weights, their room kept
  index next_;
  std::vector<bool> copied_;  // shards of next_ that are its own
};

std::optional<index> index::updated(const index& base, std::vector<const document*>&& docs, std::vector<std::uint64_t>&& keys) {
  index_update update{base, docs, keys};
  if (!update.diff()) return std::nullopt;
  return update.finish();
}

std::vector<index::scored_term> index::terms_of(const query& q) const {
  std::vector<scored_term> terms;
  const double n = static_cast<double>(docs_.size());
  auto idf = [&](double df) { return std::log(1.0 + (n - df + 0.5) / (df + 0.5)); };
  // An expansion counts below the word typed: its idf is at most the typed word's, where the
  // catalog has that word (a rare synonym must not outweigh a common word the agent typed).
  std::vector<const term_postings*> found(q.terms.size());
  std::vector<double> typed_idf(q.words.size(), std::numeric_limits<double>::infinity());
  for (std::size_t i = 0; i < q.terms.size(); ++i) {
    auto& t = q.terms[i];
    found[i] = postings_of(t.term, term_shard::hash_of(t.term));
    if (found[i] && t.via == expansion::typed) typed_idf[t.word] = idf(static_cast<double>(found[i]->list.size()));
  }
  for (std::size_t i = 0; i < q.terms.size(); ++i) {
    auto& t = q.terms[i];
    if (!found[i]) continue;
    const double df = static_cast<double>(found[i]->list.size());
    // An expansion that over half the catalog holds (the billing unit "call", the method
    // "get", a host's "example") tells no listing from another: it would only make every
    // listing match. (Of one or two listings, any term is half of them.)
    if (t.via != expansion::typed && n > 2 && 2 * df > n) continue;
    const double weight_idf = t.via == expansion::typed ? idf(df) : std::min(idf(df), typed_idf[t.word]);
    terms.push_back({found[i], t.weight * weight_idf, t.word, &t});
  }
  return terms;
}

namespace {

/// A document's score from its parts, one per query term (0 where it lacks the term): the
/// best part of each typed word, added up in the words' order. Bounds are combined by the same
/// function, and max and + never fall when a part rises, so a bound is never below the score
/// it bounds, to the last bit.
template <class Terms>
double combine(const Terms& terms, const std::vector<double>& parts) {
  double total = 0, best = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0 && terms[i].word != terms[i - 1].word) {
      total += best;
      best = 0;
    }
    best = std::max(best, parts[i]);
  }
  return total + best;
}

}  // namespace

double usage_factor(std::uint64_t calls30d) {
  const double full = std::log1p(static_cast<double>(usage_full_calls));
  return 1.0 + usage_weight * std::min(1.0, std::log1p(static_cast<double>(calls30d)) / full);
}

usage_prior usage_prior::of(const std::vector<std::uint64_t>& calls) {
  usage_prior p;
  if (std::all_of(calls.begin(), calls.end(), [](std::uint64_t c) { return c == 0; })) return p;
  p.by_position.reserve(calls.size());
  for (auto c : calls) {
    p.by_position.push_back(static_cast<float>(usage_factor(c)));
    p.largest = std::max(p.largest, p.by_position.back());
  }
  return p;
}

std::vector<hit> index::rank(const query& q, const usage_prior* prior) const {
  // Dense accumulators per thread: no hashing and no allocation per matching document. They are
  // all zeros between calls (the touched entries are reset below).
  thread_local std::vector<double> scores, word_best;
  thread_local std::vector<std::uint32_t> touched, word_touched;
  if (scores.size() < docs_.size()) scores.resize(docs_.size(), 0.0), word_best.resize(docs_.size(), 0.0);
  touched.clear();
  auto terms = terms_of(q);
  for (std::size_t g = 0; g < terms.size();) {
    auto end = g;
    word_touched.clear();
    for (; end < terms.size() && terms[end].word == terms[g].word; ++end)
      for (auto& p : terms[end].postings->list) {
        if (word_best[p.doc] == 0.0) word_touched.push_back(p.doc);
        word_best[p.doc] = std::max(word_best[p.doc], terms[end].score(p));
      }
    for (auto doc : word_touched) {
      if (scores[doc] == 0.0) touched.push_back(doc);
      scores[doc] += word_best[doc];
      word_best[doc] = 0.0;
    }
    g = end;
  }
  std::vector<hit> hits;
  hits.reserve(touched.size());
  for (auto doc : touched) {
    hits.push_back({doc, prior ? scores[doc] * prior->factor(doc) : scores[doc]});
    scores[doc] = 0.0;
  }
  std::sort(hits.begin(), hits.end(), ranks_before);
  return hits;
}

std::vector<index::reason> index::explain(const query& q, std::size_t position) const {
  std::vector<reason> out;
  const auto doc = static_cast<std::uint32_t>(position);
  for (auto& t : terms_of(q)) {
    auto& list = t.postings->list;
    auto it = std::lower_bound(list.begin(), list.end(), doc, [](const posting& p, std::uint32_t d) { return p.doc < d; });
    if (it == list.end() || it->doc != doc) continue;
    const double score = t.score(*it);
    if (!out.empty() && out.back().term->word == t.word) {
      if (score <= out.back().score) continue;
      out.pop_back();
    }
    reason r{t.source, score, {}};
    for (std::size_t f = 0; f < field_count; ++f)
      if (docs_[position]->has(static_cast<field>(f), t.source->term)) r.fields.push_back(static_cast<field>(f));
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<hit> index::top(const query& q, std::size_t k, const std::vector<std::uint32_t>* allowed, const usage_prior* prior) const {
  std::vector<hit> best;  // a heap with the hit that ranks last on top
  auto before = [](const hit& a, const hit& b) { return ranks_before(a, b); };  // inlined, unlike a function pointer
  auto terms = terms_of(q);
  const auto m = terms.size();
  if (m == 0 || k == 0 || (allowed && allowed->empty())) return best;
  // Documents come in listing order, so one that scores no more than the k-th best loses to
  // every hit held and to every hit taken later (those score more): skipping it is exact, ties
  // included. A bound is combined as scores are (combine) from parts each at least the
  // document's, then multiplied by the largest prior factor where a score is by its own: it is
  // never below the score, to the last bit (rounding keeps the order of products of non-negative
  // numbers).
  const double most = prior ? prior->largest : 1.0;
  auto combined = [&](const std::vector<double>& parts) { return combine(terms, parts) * most; };
  // Terms by their best contribution, least first: a prefix of them whose bests add up to no
  // more than the k-th best cannot place a document on their own, so only the others' lists
  // (the essential ones) propose documents; the prefix's are looked up for those.
  std::vector<std::size_t> order(m);
  for (std::size_t i = 0; i < m; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return terms[a].best() < terms[b].best(); });
  std::vector<double> cap(m, 0.0);  // the best of each non-essential term, 0 for the essential ones
  std::vector<double> bound(m);
  std::vector<std::size_t> at(m, 0);  // each term's next posting (indexed as `terms`)
  std::vector<double> parts(m);
  std::size_t essential = 0, allowed_at = 0;
  double kth = 0;  // the k-th best score, once `best` holds k
  std::uint32_t unskippable_to = 0;
  double unskippable_below = -1;
  std::size_t postings = 0;  // at least the matches: no more room than they can fill
  for (auto& t : terms) postings += t.postings->list.size();
  best.reserve(std::min(k, postings));
  auto current = [&](std::size_t i) { return at[i] < terms[i].postings->list.size() ? terms[i].postings->list[at[i]].doc : UINT32_MAX; };
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
        auto& list = terms[i].postings->list;
        if (at[i] >= list.size()) continue;
        auto b = at[i] / block;
        bound[i] = terms[i].block_best(b);
        end = std::min(end, list[std::min(list.size(), (b + 1) * block) - 1].doc);
      }
      if (combined(bound) <= kth) {
        for (auto j = essential; j < m; ++j)
          for (auto i = order[j]; at[i] < terms[i].postings->list.size() && terms[i].postings->list[at[i]].doc <= end;) ++at[i];
        continue;
      }
      unskippable_to = end;
      unskippable_below = kth;
    }
    std::fill(parts.begin(), parts.end(), 0.0);
    for (auto j = essential; j < m; ++j)
      if (auto i = order[j]; current(i) == doc) parts[i] = terms[i].score(terms[i].postings->list[at[i]++]);
    if (allowed) {
      allowed_at = static_cast<std::size_t>(std::lower_bound(allowed->begin() + static_cast<std::ptrdiff_t>(allowed_at), allowed->end(), doc) -
                                            allowed->begin());
      if (allowed_at == allowed->size() || (*allowed)[allowed_at] != doc) continue;
    }
    for (std::size_t j = 0; j < essential; ++j) {
      auto i = order[j];
      auto& list = terms[i].postings->list;
      auto it = std::lower_bound(list.begin() + static_cast<std::ptrdiff_t>(at[i]), list.end(), doc,
                                 [](const posting& p, std::uint32_t d) { return p.doc < d; });
      at[i] = static_cast<std::size_t>(it - list.begin());
      if (it != list.end() && it->doc == doc) parts[i] = terms[i].score(*it);
    }
    // Combined in the terms' order, as rank() adds them up, so a score is the same double there.
    const double relevance = combine(terms, parts);
    const double score = prior ? relevance * prior->factor(doc) : relevance;
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
        bound[order[essential]] = terms[order[essential]].best();
        if (combined(bound) > kth) break;
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

ranked_page page_of(const index& idx, const query& q, const std::vector<std::uint32_t>* allowed, std::size_t per_origin,
                    std::size_t offset, std::size_t limit, const usage_prior* prior) {
  ranked_page page;
  const auto want = offset + limit;
  // Hits seen per origin: all zeros between calls (reset below), so no allocation or clearing
  // in proportion to the catalog.
  thread_local std::vector<std::uint32_t> seen;
  if (seen.size() < idx.origins()) seen.resize(idx.origins(), 0);
  // The best few times the page's end, then twice as many while origins run short of it.
  for (auto k = std::max<std::size_t>(64, 4 * want);; k *= 2) {
    auto hits = idx.top(q, k, allowed, prior);
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
