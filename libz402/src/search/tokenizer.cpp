#include "search/tokenizer.hpp"

#include "search/lexicon.hpp"
#include "search/words.hpp"

namespace z402::search {

std::vector<std::string> tokenize(std::string_view text) {
  auto& lex = lexicon::instance();
  auto words = words_of(text);
  std::vector<std::string> out;
  out.reserve(words.size());
  for (auto& w : words)
    if (!lex.is_stopword(w, language::english)) out.push_back(stem(w));
  return out;
}

}  // namespace z402::search
