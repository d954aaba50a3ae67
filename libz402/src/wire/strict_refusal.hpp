#pragma once
// What wire::parse_strict and wire::flat_json share (json.cpp): the parser's options, and the
// refusal of a text one of them would not take, so both refuse alike and say the same.
#include "z402/error.hpp"

#include <boost/json/parse_options.hpp>
#include <boost/system/error_code.hpp>

#include <cstddef>
#include <string_view>

namespace z402::wire {

/// Boost's defaults, nesting bounded by `max_depth`.
boost::json::parse_options strict_options(std::size_t max_depth);

/// Why `text` is refused: `ec` when the tokenizer failed (too deep, or not JSON); without one,
/// the first repeated key or number beyond a double's range in the text, found by a second parse
/// (paid only by a refused text).
error strict_refusal(std::string_view text, std::size_t max_depth, boost::system::error_code ec);

}  // namespace z402::wire
