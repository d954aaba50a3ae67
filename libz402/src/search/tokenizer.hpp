#pragma once
// What a word is, for the server's search and the agent's local ranking alike: UTF-8 aware
// splitting, case folding, identifiers split on - _ . / and camelCase, a small English
// stopword list, and a light suffix stemmer so "translation" meets "translate".
#include <string>
#include <string_view>
#include <vector>

namespace z402::search {

/// The terms of `text`, in order, stopwords dropped, stemmed. Repeats are kept.
std::vector<std::string> tokenize(std::string_view text);

/// The same terms, each once, sorted.
std::vector<std::string> distinct_terms(std::string_view text);

/// The stem of one lower-case word.
std::string stem(std::string word);

bool is_stopword(std::string_view word);

}  // namespace z402::search
