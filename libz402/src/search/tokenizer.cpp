#include "search/tokenizer.hpp"

#include <algorithm>
#include <array>

namespace z402::search {
namespace {

// Decodes one UTF-8 code point at s[i]; invalid bytes decode as U+FFFD, one byte long.
char32_t next_code_point(std::string_view s, std::size_t& i) {
  auto b0 = static_cast<unsigned char>(s[i]);
  int len = b0 < 0x80 ? 1 : (b0 >> 5) == 0x6 ? 2 : (b0 >> 4) == 0xE ? 3 : (b0 >> 3) == 0x1E ? 4 : 0;
  if (len == 0 || i + len > s.size()) {
    ++i;
    return 0xFFFD;
  }
  char32_t cp = len == 1 ? b0 : len == 2 ? (b0 & 0x1F) : len == 3 ? (b0 & 0x0F) : (b0 & 0x07);
  for (int k = 1; k < len; ++k) {
    auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) {
      ++i;
      return 0xFFFD;
    }
    cp = (cp << 6) | (b & 0x3F);
  }
  i += len;
  return cp;
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Letters and digits of any script are word characters; ASCII punctuation, Latin-1 symbols,
// general and CJK punctuation, spaces and controls are not.
bool is_word_char(char32_t cp) {
  if (cp < 0x80) return (cp >= '0' && cp <= '9') || (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z');
  if (cp < 0xC0) return cp == 0xAA || cp == 0xB5 || cp == 0xBA;
  if (cp == 0xD7 || cp == 0xF7 || cp == 0xFFFD) return false;
  if (cp >= 0x2000 && cp <= 0x2BFF) return false;  // punctuation, symbols, arrows, shapes
  if (cp >= 0x3000 && cp <= 0x303F) return false;  // CJK punctuation
  if (cp >= 0xFE30 && cp <= 0xFE4F) return false;
  if (cp >= 0xFF00 && cp <= 0xFF0F) return false;  // fullwidth punctuation
  if (cp >= 0x1F000 && cp <= 0x1FAFF) return false;  // emoji
  return true;
}

bool is_greek_upper_with_tonos(char32_t cp) { return cp == 0x386 || (cp >= 0x388 && cp <= 0x38F && cp != 0x38B && cp != 0x38D); }

bool is_upper(char32_t cp) {
  return (cp >= 'A' && cp <= 'Z') || (cp >= 0xC0 && cp <= 0xDE && cp != 0xD7) || (cp >= 0x391 && cp <= 0x3A9) ||
         is_greek_upper_with_tonos(cp) || (cp >= 0x400 && cp <= 0x42F);
}

char32_t fold(char32_t cp) {
  if (cp >= 'A' && cp <= 'Z') return cp + 32;
  if (cp >= 0xC0 && cp <= 0xDE && cp != 0xD7) return cp + 32;  // Latin-1
  if (cp >= 0x100 && cp <= 0x17F) return cp | 1;                // Latin Extended-A pairs (upper even)
  if (cp >= 0x391 && cp <= 0x3A9) return cp + 32;                // Greek
  if (cp == 0x386) return 0x3AC;
  if (cp >= 0x388 && cp <= 0x38A) return cp + 37;
  if (cp == 0x38C) return 0x3CC;
  if (cp == 0x38E || cp == 0x38F) return cp + 63;
  if (cp >= 0x410 && cp <= 0x42F) return cp + 32;                // Cyrillic
  if (cp >= 0x400 && cp <= 0x40F) return cp + 80;
  return cp;
}

constexpr std::array<std::string_view, 58> stopwords{
    "a",    "about", "an",   "and",  "any",   "are",  "as",    "at",   "be",   "by",    "can",  "could",
    "do",   "does",  "for",  "from", "get",   "give", "has",   "have", "how",  "i",     "if",   "in",
    "into", "is",    "it",   "its",  "just",  "let",  "me",    "my",   "need", "of",    "on",   "or",
    "our",  "please", "s",   "so",   "some",  "that", "the",   "their", "then", "this", "to",   "use",
    "want", "was",   "we",   "what", "whats", "which", "with", "you"};

}  // namespace

bool is_stopword(std::string_view word) { return std::binary_search(stopwords.begin(), stopwords.end(), word); }

std::string stem(std::string w) {
  auto ends = [&](std::string_view suffix) {
    return w.size() > suffix.size() && std::string_view{w}.substr(w.size() - suffix.size()) == suffix;
  };
  auto cut = [&](std::size_t n, std::string_view add = {}) {
    w.resize(w.size() - n);
    w.append(add);
  };
  if (w.size() <= 3) return w;
  if (ends("ies") && w.size() > 4) cut(3, "y");
  else if (ends("sses")) cut(2);
  else if (ends("s") && !ends("ss") && !ends("us") && !ends("is")) cut(1);
  if (ends("ization") && w.size() > 8) cut(7, "iz");
  else if (ends("ation") && w.size() > 6) cut(5, "at");
  else if (ends("ing") && w.size() > 5) cut(3);
  else if (ends("ed") && w.size() > 4) cut(2);
  else if (ends("er") && w.size() > 6) cut(2);  // converter -> convert; weather, water stay
  if (ends("e") && w.size() > 4) cut(1);
  return w;
}

std::vector<std::string> tokenize(std::string_view text) {
  std::vector<std::string> out;
  std::string word;
  std::size_t letters = 0;     // code points in `word`
  std::size_t last_start = 0;  // byte offset of the last code point in `word`
  char32_t previous = 0;
  auto flush = [&] {
    if (!word.empty() && !is_stopword(word)) out.push_back(stem(std::move(word)));
    word.clear();
    letters = 0;
  };
  auto append = [&](char32_t cp) {
    last_start = word.size();
    append_utf8(word, fold(cp));
    ++letters;
  };
  for (std::size_t i = 0; i < text.size();) {
    auto cp = next_code_point(text, i);
    if (!is_word_char(cp)) {
      flush();
      previous = 0;
      continue;
    }
    // camelCase: a capital after a small letter starts a new word; so does the last capital of
    // a run followed by a small letter (HTTPServer -> http server).
    bool upper = is_upper(cp);
    bool previous_small = previous && !is_upper(previous) && !(previous >= '0' && previous <= '9');
    if (upper && previous_small) flush();
    if (!upper && previous && is_upper(previous) && letters > 1) {
      std::string last = word.substr(last_start);
      word.resize(last_start);
      flush();
      word = std::move(last);
      letters = 1;
      last_start = 0;
    }
    append(cp);
    previous = cp;
  }
  flush();
  return out;
}

std::vector<std::string> distinct_terms(std::string_view text) {
  auto terms = tokenize(text);
  std::sort(terms.begin(), terms.end());
  terms.erase(std::unique(terms.begin(), terms.end()), terms.end());
  return terms;
}

}  // namespace z402::search
