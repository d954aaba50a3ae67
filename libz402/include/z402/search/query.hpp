#pragma once
// A search query as the index reads it (docs/search.md, "Queries"): the words the agent typed,
// each with the terms it stands for, weighted so that the words typed count most:
//   typed (its Snowball stem) 1 > synonym or translation (0.5, 0.6] > derivation (0.4, 0.5]
//   > hypernym (0.3, 0.4] > typo correction (0.2, 0.3].
// A document's score for a typed word is its best term's, never the sum of them (so a listing
// that lists synonyms gains nothing over one that says the word once), and the words' scores
// add up.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace z402::search {

class index;

/// How a query term came from a typed word.
enum class expansion : std::uint8_t { typed, synonym, translation, derivation, hypernym, typo };

/// "typed", "synonym", "translation", "derivation", "hypernym", "typo".
std::string_view name_of(expansion e);

struct query_term {
  std::string term;       // a stem, as the index keeps terms
  float weight = 1;       // what one unit of a match counts, 1 for the word typed
  expansion via = expansion::typed;
  std::uint32_t word = 0;  // the typed word it stands for: an index into query::words
  /// For a translation, its language ("es", "pt", "fr"), then " > " and the relation and
  /// English term when WordNet took it further; for a typo correction, the word as typed.
  std::string note;
};

struct query {
  std::vector<std::string> words;  // the typed words (folded), each once, stopwords dropped
  std::vector<query_term> terms;   // by word, then term; a term once per word
};

/// The query of `text`. A typed word of 5 letters or more that neither the catalog (`idx`'s
/// terms) nor the lexicon knows is also taken as a typo of the catalog's terms within edit
/// distance 1 (2 from 8 letters); without `idx`, no corrections.
query expand(std::string_view text, const index* idx);

/// The typed words only, weight 1 each: what the index's tests and a caller that wants no
/// expansion search with.
query literal(std::string_view text);

}  // namespace z402::search
