#pragma once
// The terms of a listing's text, for the index: its words (search/words.hpp: ICU's folding),
// English stopwords dropped (Snowball's list, in the lexicon), each word Snowball's English
// stem. A query's terms are these too, with what the lexicon relates to them (search/query.hpp).
#include <string>
#include <string_view>
#include <vector>

namespace z402::search {

/// The terms of `text`, in order, stopwords dropped, stemmed. Repeats are kept.
std::vector<std::string> tokenize(std::string_view text);

}  // namespace z402::search
