#pragma once
// What a word is, below the lexicon: the search tokenizer and the lexicon's build share it, so
// a word of a listing, of a query and of the lexicon's sources is the same word everywhere.
// Characters are classed and folded by ICU (Unicode case folding, then the canonical
// decomposition without its nonspacing marks: "MAÑANA", "mañana" and "manana" are one word);
// stems are Snowball's.
#include <string>
#include <string_view>
#include <vector>

namespace z402::search {

/// The languages whose Snowball stemmer and stopwords the search uses: listings are read as
/// English; a query word is also looked up in the others' dictionaries.
enum class language { english, spanish, portuguese, french };
inline constexpr language foreign_languages[] = {language::spanish, language::portuguese, language::french};

/// The folded words of `text`, in order: runs of letters and digits of any script (invalid
/// UTF-8 ends a word), identifiers also split at camelCase ("getWeatherByCity": get weather
/// by city; "HTTPServer": http server).
std::vector<std::string> words_of(std::string_view text);

/// Snowball's stem of a folded word in `lang` (a thread's own stemmer: they are not shared).
std::string stem(std::string_view folded_word, language lang = language::english);

}  // namespace z402::search
