#include "z402/search/query.hpp"

#include "search/lexicon.hpp"
#include "search/words.hpp"
#include "z402/search/ranking.hpp"

#include <algorithm>
#include <array>
#include <map>

namespace z402::search {
namespace {

constexpr std::size_t typo_min_letters = 5, two_typos_min_letters = 8;
constexpr std::size_t typo_corrections = 3;  // per word: the nearest, then the commonest
constexpr float typo_weight = 0.3f;          // one edit; each further one takes 0.05
constexpr float chained_share = 0.85f;  // a translation's own relations, beside their weight for English
// A word's terms in the catalog that a query keeps: its best few say what it means; the rest
// weigh less than them and each costs the ranking a list to walk.
constexpr std::size_t most_terms_per_word = 8;
constexpr float first_translation = 0.595f;  // the weight of a first sense's first gloss (0.6)

expansion via_of(relation r) {
  switch (r) {
    case relation::synonym: return expansion::synonym;
    case relation::derivation: return expansion::derivation;
    case relation::hypernym: return expansion::hypernym;
    case relation::translation: break;
  }
  return expansion::translation;
}

const char* code_of(language lang) {
  switch (lang) {
    case language::spanish: return "es";
    case language::portuguese: return "pt";
    case language::french: return "fr";
    case language::english: break;
  }
  return "en";
}

std::size_t letters_of(std::string_view word) {
  std::size_t n = 0;
  for (unsigned char c : word) n += (c & 0xC0) != 0x80;
  return n;
}

/// Optimal string alignment distance (Damerau-Levenshtein without edits of an edited span),
/// over bytes; `limit` + 1 as soon as it must exceed `limit`. Three rows on the stack: terms are
/// under 256 bytes (the index's), and a longer one is no typo of a query word.
std::size_t edit_distance(std::string_view a, std::string_view b, std::size_t limit) {
  constexpr std::size_t most = 64;
  if ((a.size() > b.size() ? a.size() - b.size() : b.size() - a.size()) > limit || a.size() >= most || b.size() >= most) return limit + 1;
  const auto m = b.size();
  std::array<std::uint8_t, most + 1> rows[3];
  auto* before = rows[0].data();
  auto* previous = rows[1].data();
  auto* current = rows[2].data();
  for (std::size_t j = 0; j <= m; ++j) previous[j] = static_cast<std::uint8_t>(j);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = static_cast<std::uint8_t>(i);
    std::size_t row_best = current[0];
    for (std::size_t j = 1; j <= m; ++j) {
      const int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      int d = std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d = std::min(d, before[j - 2] + 1);
      current[j] = static_cast<std::uint8_t>(d);
      row_best = std::min<std::size_t>(row_best, current[j]);
    }
    if (row_best > limit) return limit + 1;
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[m];
}

/// One typed word's terms: each once, with the best weight for it and how it came. With a
/// catalog, an expansion it does not hold is left out at once (most of a word's relations are
/// in no catalog): the query stays as small as what it can match.
class word_terms {
 public:
  explicit word_terms(const index* idx) : idx_(idx) {}

  /// Whether an expansion to `term` can match anything.
  bool wanted(std::string_view term) const { return !idx_ || idx_->has_term(term); }
  void add(std::string_view term, float weight, expansion via, std::string note = {}) {
    if (via != expansion::typed && !wanted(term)) return;
    auto at = std::find_if(terms_.begin(), terms_.end(), [&](auto& t) { return t.term == term; });
    if (at == terms_.end()) terms_.push_back({std::string{term}, weight, via, 0, std::move(note)});
    else if (weight > at->weight) *at = {std::string{term}, weight, via, 0, std::move(note)};
  }
  /// Whether the catalog holds any of these terms.
  bool any_in(const index& idx) const {
    return std::any_of(terms_.begin(), terms_.end(), [&](auto& t) { return idx.has_term(t.term); });
  }
  /// Into `q` as the terms of its word `word`: the best `most_terms_per_word` (the word typed
  /// first, then by weight), by term.
  void into(query& q, std::uint32_t word) {
    std::stable_sort(terms_.begin(), terms_.end(), [](auto& a, auto& b) { return a.weight > b.weight; });
    if (terms_.size() > most_terms_per_word) terms_.resize(most_terms_per_word);
    std::sort(terms_.begin(), terms_.end(), [](auto& a, auto& b) { return a.term < b.term; });
    for (auto& t : terms_) {
      t.word = word;
      q.terms.push_back(std::move(t));
    }
  }

 private:
  const index* idx_;
  std::vector<query_term> terms_;
};

/// The languages of a query, if foreign ones: those with the most of its words among their
/// stopwords or their dictionary's headwords, English's stopwords aside ("el tiempo que hace
/// hoy": es; "encontrar hotéis em Lisboa": pt), and in `most` how many of its words they have.
/// None when no foreign word is there; then each word English lacks is looked up in every
/// dictionary. English is always read.
std::vector<language> languages_of(const lexicon& lex, const std::vector<std::string>& words, std::size_t& most) {
  std::vector<related_term> found;
  auto is_word_of = [&](const std::string& w, language lang) {
    if (lex.is_stopword(w, lang)) return true;
    found.clear();
    lex.translations(lang, stem(w, lang), found);
    return !found.empty();
  };
  std::size_t hits[std::size(foreign_languages)] = {};
  most = 0;
  for (std::size_t l = 0; l < std::size(foreign_languages); ++l) {
    for (auto& w : words) hits[l] += !lex.is_stopword(w, language::english) && is_word_of(w, foreign_languages[l]);
    most = std::max(most, hits[l]);
  }
  std::vector<language> out;
  for (std::size_t l = 0; l < std::size(foreign_languages) && most > 0; ++l)
    if (hits[l] == most) out.push_back(foreign_languages[l]);
  return out;
}

/// What the lexicon relates to the folded `word`: English relations of its stem, and the
/// translations of its stems in each of `languages` where it is no stopword, with the English
/// relations of those.
void lexicon_terms(const lexicon& lex, std::string_view word, const std::string& english_stem, const std::vector<language>& languages,
                   word_terms& out) {
  std::vector<related_term> found;
  lex.related(english_stem, found);
  for (auto& r : found) out.add(r.term, r.weight, via_of(r.via));
  for (auto lang : languages) {
    if (lex.is_stopword(word, lang)) continue;
    found.clear();
    lex.translations(lang, stem(word, lang), found);
    std::vector<related_term> further;
    for (auto& t : found) {
      out.add(t.term, t.weight, expansion::translation, code_of(lang));
      further.clear();
      lex.related(t.term, further);
      // A translation's synonyms are of any of its senses ("aim", for "fin", has "design"): only
      // the words derived from it go further ("vuelo": flight, then fly), and what the first
      // translation of a word is a kind of ("nevar": snow, then weather).
      const bool first = t.weight >= first_translation;
      for (auto& r : further)
        if ((r.via == relation::derivation || (first && r.via == relation::hypernym)) && out.wanted(r.term))
          out.add(r.term, r.weight * chained_share, expansion::translation,
                std::string{code_of(lang)} + " > " + std::string{name_of(via_of(r.via))} + " of " + std::string{t.term});
    }
  }
}

/// The catalog's terms nearest to `stem`: within `limit` edits, the nearest first, then those
/// in the most documents.
void typo_terms(const index& idx, std::string_view word, const std::string& stem_of_word, std::size_t limit, word_terms& out) {
  struct candidate {
    std::string_view term;
    std::size_t distance, documents;
  };
  std::vector<candidate> near;
  idx.for_each_term([&](std::string_view term, std::size_t documents) {
    auto d = edit_distance(stem_of_word, term, limit);
    if (d <= limit) near.push_back({term, d, documents});
  });
  std::sort(near.begin(), near.end(), [](auto& a, auto& b) {
    return a.distance != b.distance ? a.distance < b.distance : a.documents != b.documents ? a.documents > b.documents : a.term < b.term;
  });
  if (near.size() > typo_corrections) near.resize(typo_corrections);
  for (auto& c : near) out.add(c.term, typo_weight - 0.05f * static_cast<float>(c.distance - 1), expansion::typo, std::string{word});
}

/// The typed words: folded, English stopwords dropped, each once (by stem) in order.
std::vector<std::pair<std::string, std::string>> typed_words(const std::vector<std::string>& words) {
  auto& lex = lexicon::instance();
  std::vector<std::pair<std::string, std::string>> out;  // word, its English stem
  for (auto& w : words) {
    if (lex.is_stopword(w, language::english)) continue;
    auto s = stem(w);
    if (std::none_of(out.begin(), out.end(), [&](auto& seen) { return seen.second == s; })) out.emplace_back(std::move(w), std::move(s));
  }
  return out;
}

/// A term that several typed words expand to stays with the word it weighs most for (the first
/// on a tie) and leaves the others: two words of a query must not both score one listing for
/// the same unrelated word ("verificar" and "endereço" both reach "direct"). A word typed is
/// never taken from its own word.
void keep_each_expansion_once(query& q) {
  std::map<std::string_view, const query_term*> owner;
  for (auto& t : q.terms) {
    auto [at, fresh] = owner.try_emplace(t.term, &t);
    if (!fresh && t.weight > at->second->weight) at->second = &t;
  }
  std::vector<query_term> kept;
  kept.reserve(q.terms.size());
  for (auto& t : q.terms)
    if (t.via == expansion::typed || owner.at(t.term) == &t) kept.push_back(t);
  q.terms = std::move(kept);
}

}  // namespace

std::string_view name_of(expansion e) {
  switch (e) {
    case expansion::typed: return "typed";
    case expansion::synonym: return "synonym";
    case expansion::translation: return "translation";
    case expansion::derivation: return "derivation";
    case expansion::hypernym: return "hypernym";
    case expansion::typo: return "typo";
  }
  return "typed";
}

query expand(std::string_view text, const index* idx) {
  auto& lex = lexicon::instance();
  query q;
  const auto all = words_of(text);
  std::size_t foreign_words = 0;
  const auto detected = languages_of(lex, all, foreign_words);
  const bool plainly_foreign = foreign_words >= 2;
  const std::vector<language> none;
  const std::vector<language> every(std::begin(foreign_languages), std::end(foreign_languages));
  for (auto& [word, english_stem] : typed_words(all)) {
    // In a query in another language, that language's stopwords are no words ("en", "de").
    const std::string_view w = word;  // a structured binding, which clang 14's lambdas cannot name
    if (std::any_of(detected.begin(), detected.end(), [&](language l) { return lex.is_stopword(w, l); })) continue;
    word_terms terms{idx};
    const bool known = lex.knows(english_stem);
    // A word English knows is English ("image" and "change" are French too) unless the query
    // is plainly in another language (two of its words or more are that language's).
    const auto& languages = detected.empty() ? (known ? detected : every) : (known && !plainly_foreign ? none : detected);
    lexicon_terms(lex, word, english_stem, languages, terms);
    terms.add(english_stem, 1.0f, expansion::typed);  // after the others: never below its own relations
    const auto letters = letters_of(word);
    if (idx && letters >= typo_min_letters && !terms.any_in(*idx))
      typo_terms(*idx, word, english_stem, letters >= two_typos_min_letters ? 2 : 1, terms);
    const auto n = static_cast<std::uint32_t>(q.words.size());
    q.words.push_back(word);
    terms.into(q, n);
  }
  keep_each_expansion_once(q);
  return q;
}

query literal(std::string_view text) {
  query q;
  for (auto& [word, english_stem] : typed_words(words_of(text))) {
    q.terms.push_back({english_stem, 1.0f, expansion::typed, static_cast<std::uint32_t>(q.words.size()), {}});
    q.words.push_back(word);
  }
  return q;
}

}  // namespace z402::search
