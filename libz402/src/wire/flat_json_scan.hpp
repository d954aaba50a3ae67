#pragma once
// The common form of a JSON body read without Boost's tokenizer: what official clients and rail
// nodes send (ASCII or valid UTF-8 text, the short escapes, integers of up to 18 digits). Boost's
// basic_parser is a resumable parser, built to take a text in pieces, and reading a settle body
// with it was a quarter of the sending thread's time in z402-bench-engine (profile.md,
// 2026-12-04, evening); a body is always whole here.
//
// The scanner decides nothing it is not sure of: it takes a text only when Boost's tokenizer
// would take it with the same tokens, and gives every other text (a fraction or an exponent, a
// \u escape, a repeated key, deep nesting, anything not JSON) back to the caller, who reads it
// again with Boost's tokenizer for the verdict. So the strict parser's verdicts and a payment's
// canonical text cannot differ between the two; the json_strict fuzz target checks that they
// hold the same document.
#include <cstddef>
#include <string_view>

namespace z402::wire {

struct flat_json_builder;

/// Reads `text` through `into` when it is in the common form and true; false otherwise, with
/// `into`'s document partly written (the caller clears it and reads the text with Boost's).
bool scan_common_form(flat_json_builder& into, std::string_view text, std::size_t max_depth);

}  // namespace z402::wire
