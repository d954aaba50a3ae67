#pragma once
// The compiled lexicon's layout, written by libz402/lexicon/build_lexicon.cpp at build time and
// read in place by search/lexicon.cpp (docs/search.md, "The lexicon"). Little-endian 32-bit
// words throughout, every array 4-byte aligned:
//
//   header
//   pool        the bytes of every term, back to back
//   terms       term id -> (offset in pool << 8 | length), lengths below 256
//   tables      per table: keys (term ids, sorted by their bytes), starts (key count + 1), and
//               entries (packed: term id << 10 | relation << 8 | weight 0..255)
//   stopwords   per language: term ids sorted by their bytes
//   sources     what the lexicon was made from (package names and versions), UTF-8
#include <cstdint>

namespace z402::search::lexicon_format {

inline constexpr char magic[8] = {'z', '4', '0', '2', 'l', 'e', 'x', '\0'};
inline constexpr std::uint32_t version = 1;

/// Tables: the English one relates an English stem to other English stems (WordNet); each
/// language's relates a stem of that language to English stems (its FreeDict dictionary).
enum table : std::uint32_t { english_related, spanish_english, portuguese_english, french_english, table_count };
/// Stopword lists, one per search::language in its order.
inline constexpr std::uint32_t stopword_lists = 4;

/// What an entry's term is to its key. Two bits.
enum class relation : std::uint32_t { synonym = 0, derivation = 1, hypernym = 2, translation = 3 };

struct span {
  std::uint32_t offset;  // bytes from the start of the file
  std::uint32_t count;   // elements
};

struct table_layout {
  span keys;
  span starts;
  span entries;
};

struct header {
  char magic[8];
  std::uint32_t version;
  std::uint32_t bytes;  // the whole file's
  span pool;
  span terms;
  table_layout tables[table_count];
  span stopwords[stopword_lists];
  span sources;
};

inline constexpr std::uint32_t pack_term(std::uint32_t offset, std::uint32_t length) { return offset << 8 | length; }
inline constexpr std::uint32_t pack_entry(std::uint32_t term, relation r, std::uint32_t weight) {
  return term << 10 | static_cast<std::uint32_t>(r) << 8 | weight;
}
inline constexpr std::uint32_t max_terms = 1u << 22;
inline constexpr std::uint32_t max_pool = 1u << 24;

}  // namespace z402::search::lexicon_format
