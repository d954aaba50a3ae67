#pragma once
// The search lexicon (docs/search.md, "The lexicon"): English stems related by WordNet,
// Spanish, Portuguese and French stems translated by FreeDict, and Snowball's stopwords, made
// at build time from Debian's packages and compiled into the library. Read in place: loading
// it is checking its header, and a lookup is a binary search over its sorted keys.
#include "search/lexicon_format.hpp"
#include "search/words.hpp"
#include "z402/error.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace z402::search {

using lexicon_format::relation;

/// A term related to a key, and how much a match of it is worth beside the key's own (0..1).
struct related_term {
  std::string_view term;  // an English stem
  float weight;
  relation via;
};

class lexicon {
 public:
  /// The library's lexicon. It is checked on first use; a library built with a broken one stops
  /// there (std::terminate with the reason on stderr), before serving anything.
  static const lexicon& instance();
  /// The lexicon in `bytes` (which must outlive it, 4-byte aligned), or why it is none: every
  /// offset and term in it is checked here, so lookups need no check of their own.
  static expected<lexicon> read(const unsigned char* bytes, std::size_t size);

  /// Appends to `out` the English stems related to the English stem `stem` (none when WordNet
  /// has no word of that stem).
  void related(std::string_view stem, std::vector<related_term>& out) const { lookup(lexicon_format::english_related, stem, out); }
  /// Appends to `out` the English stems that translate `stem`, a stem in the foreign `lang`.
  void translations(language lang, std::string_view stem, std::vector<related_term>& out) const;
  /// Whether WordNet has a word of this English stem.
  bool knows(std::string_view stem) const { return find(lexicon_format::english_related, stem) != npos; }
  /// Whether the folded `word` is one of `lang`'s stopwords (Snowball's lists).
  bool is_stopword(std::string_view word, language lang) const;

  std::size_t bytes() const { return bytes_; }
  /// What it was made from: the packages and their versions.
  std::string_view sources() const { return sources_; }

 private:
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
  lexicon(const unsigned char* bytes, std::size_t size, const lexicon_format::header& h);
  /// The first thing wrong with the file, or nothing.
  const char* fault() const;

  std::string_view term(std::uint32_t id) const;
  const std::uint32_t* words(lexicon_format::span s) const { return reinterpret_cast<const std::uint32_t*>(base_ + s.offset); }
  /// The position of `key` among `table`'s keys, npos when it is not one.
  std::size_t find(lexicon_format::table table, std::string_view key) const;
  void lookup(lexicon_format::table table, std::string_view key, std::vector<related_term>& out) const;

  const unsigned char* base_;
  std::size_t bytes_;
  lexicon_format::header header_;
  std::string_view sources_;
};

}  // namespace z402::search
