#pragma once
// Strict JSON parsing for untrusted bodies: Boost.JSON's DOM parser silently keeps one of two
// duplicate keys, so a hostile client could make two readers of one document disagree. We
// refuse duplicates, invalid UTF-8 and excessive nesting before anything looks at the value.
#include "z402/error.hpp"

#include <boost/json/value.hpp>

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace z402::wire {

/// Parses `text` as one JSON document, refusing duplicate object keys, invalid UTF-8 and
/// nesting deeper than `max_depth` (errc::invalid_request; the reason says which).
expected<boost::json::value> parse_strict(std::string_view text, std::size_t max_depth);

/// A parsed document that owns the one arena (boost::json::monotonic_resource) its whole tree
/// lives in: made with two allocations instead of one a node, and freed with two and no walk
/// of the tree, since its storage deallocates trivially: a declaration's body, up to 17 MiB of
/// JSON, freed at once when its items are checked. (A settle body is read without a tree:
/// wire::flat_json.)
using json_document = std::shared_ptr<const boost::json::value>;

/// parse_strict, into a json_document.
expected<json_document> parse_strict_document(std::string_view text, std::size_t max_depth);

/// Parses JSON that will only be shown to a person, never trusted: strings with invalid UTF-8
/// are kept as bytes (the printer replaces them), a repeated key keeps its last value. Nesting
/// is bounded like parse_strict's.
expected<boost::json::value> parse_for_display(std::string_view text, std::size_t max_depth);

/// Nesting depth of a value: a scalar is 0, `[]` and `{}` are 1.
std::size_t json_depth(const boost::json::value& v);

/// The value at a path of object keys (`{"extensions","z402","unit"}`), or nullptr when a
/// step is missing or not an object.
const boost::json::value* find_path(const boost::json::object& root, std::initializer_list<std::string_view> path);

/// Returns the string at `key` of `obj`, or nullptr when absent or not a string.
const boost::json::string* find_string(const boost::json::object& obj, std::string_view key);

}  // namespace z402::wire
