#pragma once
// Strict JSON parsing for untrusted bodies: Boost.JSON's DOM parser silently keeps one of two
// duplicate keys, so a hostile client could make two readers of one document disagree. We
// refuse duplicates, invalid UTF-8 and excessive nesting before anything looks at the value.
#include <boost/json/value.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace z402::wire {

/// Parses `text` as one JSON document, refusing duplicate object keys, invalid UTF-8 and
/// nesting deeper than `max_depth`. On failure returns nullopt and sets `error`.
std::optional<boost::json::value> parse_strict(std::string_view text, std::size_t max_depth,
                                               std::string& error);

/// Nesting depth of a value: a scalar is 0, `[]` and `{}` are 1.
std::size_t json_depth(const boost::json::value& v);

/// Returns the string at `key` of `obj`, or nullptr when absent or not a string.
const boost::json::string* find_string(const boost::json::object& obj, std::string_view key);

}  // namespace z402::wire
