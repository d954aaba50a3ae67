#pragma once
// BM25F over an item's fields (docs/contract.md §4), a typed word scoring by its best term
// (z402/search/query.hpp). A term counts once per field however often it is repeated there; a field is normalised by its length with the repeats, and a field
// that is mostly repeats (keyword stuffing) loses weight: neither repeating nor piling up
// keywords buys rank.
#include "z402/search/query.hpp"
#include "z402/search/term_map.hpp"

#include <boost/json/object.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace z402::search {

enum field : std::size_t { name, route, description, params, tags, unit, mime, field_count };

/// An item as search sees it: the distinct terms of each field, and its origin. Every item
/// keeps one, so its terms are packed into one string (a vector of strings per field cost
/// about 1.3 KB an item, a third of the catalog's own bytes).
struct document {
  std::string text;                                    // each field's terms, sorted, distinct, back to back
  std::vector<std::uint32_t> ends;                     // where each term ends in `text`
  std::array<std::uint32_t, field_count + 1> first{};  // index in `ends` of each field's first term
  std::array<std::uint16_t, field_count> length{};     // terms with their repeats
  /// The share of the description's and tags' terms that WordNet makes a synonym or a
  /// derivation of another of them, beyond the first three: an honest text says a thing in a
  /// word or two, a keyword list in every word it has (ranking.cpp, listed_share).
  float listed = 0;
  std::string origin;

  std::size_t term_count(field f) const { return first[f + 1] - first[f]; }
  std::string_view term(field f, std::size_t k) const {
    auto i = first[f] + k;
    auto begin = i == 0 ? 0u : ends[i - 1];
    return std::string_view{text}.substr(begin, ends[i] - begin);
  }
  /// `word` as one of field f's terms, in `text` (binary search; empty when it is none).
  std::string_view find(field f, std::string_view word) const;
  /// `word` as one of this document's terms, in `text` (empty when it is none of them).
  std::string_view find(std::string_view word) const;
  bool has(field f, std::string_view word) const { return !find(f, word).empty(); }
};

/// The document of a DiscoveryResource's fields; `selector` is its method or toolName.
document make_document(const boost::json::object& fields, std::string_view selector);

struct hit {
  std::size_t position;  // in the documents the index was built from
  double score;
};

/// The usage prior (docs/search.md, "Usage"): a listing's relevance is multiplied by
/// 1 + usage_weight * min(1, log(1 + calls) / log(1 + usage_full_calls)), its paid calls of the
/// last 30 days: 1 never paid, about 1.02 for 10 calls, 1.06 for 1,000, 1.1 from 100,000. Bounded, so
/// paid calls can lift a listing above another only when its relevance is within 10 % of the
/// other's: one that matches the query clearly better never falls below one paid more. Settles
/// come only from the rail's authenticated nodes, so declarations cannot buy it.
constexpr double usage_weight = 0.1;
constexpr std::uint64_t usage_full_calls = 100'000;
double usage_factor(std::uint64_t calls30d);

/// Each document's usage factor, by position, and the largest of them (what bounds a score).
/// Empty: 1 for every document.
struct usage_prior {
  std::vector<float> by_position;
  float largest = 1;

  /// The prior of documents whose 30 days' calls are `calls` (by position).
  static usage_prior of(const std::vector<std::uint64_t>& calls);
  double factor(std::size_t position) const { return by_position.empty() ? 1.0 : by_position[position]; }
};

/// The searchable documents of one catalog version, and the lists of each term's documents.
/// What a term adds to a document's score there depends on that document alone (its fields and
/// their lengths; docs/contract.md §4), and on how many documents hold the term (its idf, taken when
/// a query asks): so a new version's index is the previous one's with the lists of the changed
/// documents' terms redone (`updated`), and a list no change touched is shared with it.
class index {
 public:
  /// `docs` in listing order, `keys` their listing keys (ascending, one per document): a key
  /// names the same item in every version, so `updated` can tell what changed. The documents
  /// must outlive the index (the catalog's snapshots hold them).
  index(std::vector<const document*> docs, std::vector<std::uint64_t> keys);

  /// The index of `docs`/`keys` (as the constructor's) made from `base`'s: equal to the one the
  /// constructor builds (the same hits, score for score), at a cost in proportion to the
  /// changed documents' terms and lists, not the catalog. Nothing when a document that both
  /// hold moved in listing order (an item before it left) or when more than an eighth of the
  /// documents changed: then the constructor is cheaper or as cheap, and `docs` and `keys` are
  /// left as they were for it (they are taken only when an index is returned). `base`'s
  /// documents must be alive through the call, not after it.
  static std::optional<index> updated(const index& base, std::vector<const document*>&& docs, std::vector<std::uint64_t>&& keys);

  /// Every document that shares a term with the query, best first; ties keep listing order.
  /// The whole ranking, scored exhaustively: the reference `top` is checked against. Scores are
  /// relevance times the document's `prior` factor (none: relevance alone), in every ranking here.
  std::vector<hit> rank(const query& q, const usage_prior* prior = nullptr) const;
  /// The `k` best of the documents that share a term with the query and that `allowed` holds
  /// (positions ascending; every document when null), best first, ties in listing order: the
  /// same hits as the first `k` of `rank` so filtered. Fewer than `k` only when that is all of
  /// them. The cost is about k's, not the matches': documents are visited in listing order
  /// (so a later one never wins a tie), and once `k` are held, a stretch of postings whose
  /// upper bound cannot beat the k-th best is skipped unscored (block-max MaxScore).
  std::vector<hit> top(const query& q, std::size_t k, const std::vector<std::uint32_t>* allowed = nullptr,
                       const usage_prior* prior = nullptr) const;

  /// Why a document scored what it did: for each typed word it matched, the term that counted
  /// (the query's term with the best score there), that score, and the fields holding the term.
  struct reason {
    const query_term* term;
    double score;
    std::vector<field> fields;
  };
  std::vector<reason> explain(const query& q, std::size_t position) const;

  /// Whether a document holds `term`.
  bool has_term(std::string_view term) const { return postings_of(term, term_shard::hash_of(term)) != nullptr; }
  /// f(term, documents holding it) for every term of the catalog (the typo corrections' vocabulary).
  template <class F>
  void for_each_term(F&& f) const {
    for (auto& shard : shards_)
      if (shard)
        for (auto& e : shard->entries()) f(e.term, e.value->list.size());
  }

  const document& doc(std::size_t position) const { return *docs_[position]; }
  std::size_t size() const { return docs_.size(); }
  /// The origin of a document as a number from 0 to origins() - 1.
  std::uint32_t origin_of(std::size_t position) const { return origin_ids_[position]; }
  std::size_t origins() const { return origin_numbers_.size(); }

 private:
  friend class index_update;  // updated()'s steps (ranking.cpp)
  index() = default;

  /// A document's posting for a term: BM25F's saturated term weight of the term's fields in it,
  /// computed once; a query multiplies it by the term's idf. Scoring reads postings in order
  /// and nothing else, so a sparse term in a large catalog costs no cache miss per hit.
  struct posting {
    std::uint32_t doc;
    float weight;
  };
  /// Postings per block of one term's list: each block keeps the best weight in it.
  static constexpr std::size_t block = 64;
  struct term_postings {
    std::vector<posting> list;      // listing order
    float best = 0;                 // the best weight in `list`
    std::vector<float> block_best;  // the best weight in list[b * block, (b + 1) * block); none for one block

    /// `best` and `block_best` of `list`.
    void bound();
    float block_bound(std::size_t b) const { return block_best.empty() ? best : block_best[b]; }
  };
  /// A term of a query and what one unit of its weight adds to a score (its idf times the
  /// query's weight of it), and the typed word it stands for. Scores and their bounds are
  /// taken here only, so a bound is the same product as the scores it bounds.
  struct scored_term {
    const term_postings* postings;
    double idf;
    std::uint32_t word;
    const query_term* source;

    double score(const posting& p) const { return idf * p.weight; }
    double best() const { return idf * postings->best; }
    double block_best(std::size_t b) const { return idf * postings->block_bound(b); }
  };
  /// The terms of the query this index knows, in the order scores add them up (by typed word,
  /// then term).
  std::vector<scored_term> terms_of(const query& q) const;
  /// Gives `position` the number of `origin`, a new one if no document had it.
  void number_origin(std::size_t position, const std::string& origin);

  /// Terms to their lists, in shards by the top bits of the term's hash: `updated` copies the
  /// shards a change touches, not every term (at 65,536 items a copy of all of them cost more
  /// than the change).
  using term_shard = term_map<std::shared_ptr<term_postings>>;
  std::size_t shard_of(std::size_t hash) const { return hash >> shard_shift_; }
  /// The lists of `term` (its hash `h`), null when no document holds it.
  const term_postings* postings_of(std::string_view term, std::size_t h) const;

  std::vector<const document*> docs_;
  std::vector<std::uint64_t> keys_;
  // Terms are in the documents' text. A shard or a list is shared by every index it is the same
  // in, so none is changed once its index is made: `updated` replaces them, never edits one.
  std::vector<std::shared_ptr<term_shard>> shards_;  // a power of two of them; null: no term
  unsigned shard_shift_ = 63;
  std::vector<std::uint32_t> origin_ids_;
  std::unordered_map<std::string, std::uint32_t> origin_numbers_;
};

/// At most `per_origin` hits of one origin keep their place; the others move to the end, in
/// their ranked order, never dropped.
std::vector<hit> spread_origins(const index& idx, std::vector<hit> hits, std::size_t per_origin);

/// Best first, ties in listing order.
bool ranks_before(const hit& a, const hit& b);

/// A page of a ranking after spread_origins: positions [offset, offset + limit), and whether
/// more hits follow them.
struct ranked_page {
  std::vector<std::size_t> positions;
  bool more = false;
};

/// The page [offset, offset + limit) of spread_origins(idx, the ranking of `q` among
/// `allowed` (null: all), per_origin), from as few of the best hits as it needs: `top` of a few
/// times offset + limit, more only when origins run short.
ranked_page page_of(const index& idx, const query& q, const std::vector<std::uint32_t>* allowed, std::size_t per_origin,
                    std::size_t offset, std::size_t limit, const usage_prior* prior = nullptr);

}  // namespace z402::search
