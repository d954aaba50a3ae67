#include "search/words.hpp"

#include <libstemmer.h>
#include <unicode/uchar.h>
#include <unicode/unorm2.h>
#include <unicode/utf8.h>

#include <array>
#include <memory>

namespace z402::search {
namespace {

// Letters and digits of any script make words; a combining mark belongs to the letter before it.
bool is_word_char(UChar32 c) {
  if (c < 0) return false;
  auto type = u_charType(c);
  return u_isalnum(c) || type == U_NON_SPACING_MARK || type == U_COMBINING_SPACING_MARK;
}

// Appends the folded form of `c`: its case folding, decomposed, without nonspacing marks.
void append_folded(std::string& out, UChar32 c) {
  static const UNormalizer2* nfd = [] {
    UErrorCode status = U_ZERO_ERROR;
    return unorm2_getNFDInstance(&status);
  }();
  c = u_foldCase(c, U_FOLD_CASE_DEFAULT);
  auto append = [&](UChar32 cp) {
    if (u_charType(cp) == U_NON_SPACING_MARK) return;
    char buf[U8_MAX_LENGTH];
    int32_t n = 0;
    UBool error = false;
    U8_APPEND(buf, n, U8_MAX_LENGTH, cp, error);
    if (!error) out.append(buf, static_cast<std::size_t>(n));
  };
  std::array<UChar, 32> decomposed;
  UErrorCode status = U_ZERO_ERROR;
  auto n = nfd ? unorm2_getDecomposition(nfd, c, decomposed.data(), decomposed.size(), &status) : -1;
  if (n < 0 || U_FAILURE(status)) return append(c);
  for (int32_t i = 0; i < n;) {
    UChar32 cp;
    U16_NEXT(decomposed.data(), i, n, cp);
    append(cp);
  }
}

const char* snowball_name(language lang) {
  switch (lang) {
    case language::spanish: return "spanish";
    case language::portuguese: return "portuguese";
    case language::french: return "french";
    case language::english: break;
  }
  return "english";
}

struct stemmer_deleter {
  void operator()(sb_stemmer* s) const { sb_stemmer_delete(s); }
};

}  // namespace

std::vector<std::string> words_of(std::string_view text) {
  std::vector<std::string> out;
  std::string word;
  std::size_t letters = 0, last_start = 0;  // code points in `word`; byte offset of its last one
  UChar32 previous = -1;
  auto flush = [&] {
    if (!word.empty()) out.push_back(std::move(word));
    word.clear();
    letters = 0;
  };
  const auto* s = reinterpret_cast<const std::uint8_t*>(text.data());
  const auto length = static_cast<int32_t>(text.size());
  for (int32_t i = 0; i < length;) {
    UChar32 c;
    U8_NEXT(s, i, length, c);  // c < 0: an invalid sequence
    if (!is_word_char(c)) {
      flush();
      previous = -1;
      continue;
    }
    // camelCase: a capital after a small letter starts a word; so does the last capital of a run
    // followed by a small letter (HTTPServer: http server).
    const bool upper = u_isUUppercase(c);
    const bool previous_small = previous >= 0 && u_isULowercase(previous);
    if (upper && previous_small) flush();
    if (u_isULowercase(c) && previous >= 0 && u_isUUppercase(previous) && letters > 1) {
      std::string last = word.substr(last_start);
      word.resize(last_start);
      flush();
      word = std::move(last);
      letters = 1;
    }
    last_start = word.size();
    append_folded(word, c);
    ++letters;
    previous = c;
  }
  flush();
  return out;
}

std::string stem(std::string_view folded_word, language lang) {
  thread_local std::array<std::unique_ptr<sb_stemmer, stemmer_deleter>, 4> stemmers;
  auto& stemmer = stemmers[static_cast<std::size_t>(lang)];
  if (!stemmer) stemmer.reset(sb_stemmer_new(snowball_name(lang), "UTF_8"));
  if (!stemmer) return std::string{folded_word};
  auto* out = sb_stemmer_stem(stemmer.get(), reinterpret_cast<const sb_symbol*>(folded_word.data()),
                              static_cast<int>(folded_word.size()));
  if (!out) return std::string{folded_word};  // out of memory: the word as it is
  return std::string{reinterpret_cast<const char*>(out), static_cast<std::size_t>(sb_stemmer_length(stemmer.get()))};
}

}  // namespace z402::search
