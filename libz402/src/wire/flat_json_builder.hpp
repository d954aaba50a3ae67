#pragma once
// The builder of a wire::flat_json (flat_json.hpp), shared by its two readers (flat_json.cpp,
// flat_json_scan.cpp), and the key order both use.
#include "wire/flat_json.hpp"

#include <boost/json/string_view.hpp>
#include <boost/system/error_code.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>

namespace z402::wire {

// Byte order of two keys (as std::string_view orders them: unsigned bytes), compared inline:
// keys are short and mostly differ in their first byte, where a call to memcmp for each
// comparison cost more than the comparison did (callgrind, z402-bench-engine).
inline bool key_before(std::string_view a, std::string_view b) {
  auto n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[i]);
  return a.size() < b.size();
}

// What reads a document into a flat_json: Boost's basic_parser calls it for every token, and the
// scanner of the common form (flat_json_scan.hpp) calls the same members, so both readers leave
// the same nodes, text and key order. It notes what parse_strict refuses after the syntax (a
// repeated key, a number beyond a double's range) so a syntax error later in the text is still
// the one reported.
struct flat_json_builder {
  static constexpr std::size_t max_object_size = std::size_t(-1);
  static constexpr std::size_t max_array_size = std::size_t(-1);
  static constexpr std::size_t max_key_size = std::size_t(-1);
  static constexpr std::size_t max_string_size = std::size_t(-1);
  using node = flat_json::node;
  using kind = flat_json::kind;
  using index = flat_json::index;
  using ec_t = boost::system::error_code;

  explicit flat_json_builder(flat_json& into) : doc(into) {}

  flat_json& doc;
  std::size_t string_start = std::string::npos;  // where the string being unescaped began in text_
  bool repeated_key = false;
  bool out_of_range = false;

  index next() const { return static_cast<index>(doc.nodes_.size()); }
  // A node written field by field where it stands: a node built aside and copied in was read back
  // as 16 bytes just after two 4-byte writes, a store the processor cannot forward, and that
  // stall was a third of the scanner's time (perf, flat_json_scan.cpp).
  node& push(kind type, std::uint32_t size, std::uint32_t end, std::uint32_t at) {
    auto& n = doc.nodes_.emplace_back();
    n.type = type;
    n.size = size;
    n.end = end;
    n.at = at;
    return n;
  }
  // A value with no node inside it (a scalar or a string): it ends one past itself.
  node& push_leaf(kind type, std::uint32_t size = 0) { return push(type, size, next() + 1, 0); }
  void push_scalar(kind type, std::int64_t i) { push_leaf(type).i = i; }
  // A string read as it stands in the text (no escape in it): not copied.
  void push_string(const char* first, std::size_t size) { push_leaf(kind::string, static_cast<std::uint32_t>(size)).s = first; }
  void open(kind type) {
    doc.open_.push_back(next());
    push(type, 0, 0, 0);
  }
  node& close(std::size_t size) {
    auto& n = doc.nodes_[doc.open_.back()];
    doc.open_.pop_back();
    n.size = static_cast<std::uint32_t>(size);
    n.end = next();
    return n;
  }
  void append(boost::json::string_view part) {
    if (string_start == std::string::npos) string_start = doc.text_.size();
    doc.text_.append(part.data(), part.size());
  }
  // A string unescaped into text_, which was reserved at the text's size and so stays where it is.
  void finish_string(boost::json::string_view last) {
    append(last);
    push_string(doc.text_.data() + string_start, doc.text_.size() - string_start);
    string_start = std::string::npos;
  }

  bool on_document_begin(ec_t&) { return true; }
  bool on_document_end(ec_t&) { return true; }
  bool on_object_begin(ec_t&) {
    open(kind::object);
    return true;
  }
  // The object's keys, sorted once here: for the duplicate check (neighbours), member()'s binary
  // search and the canonical text's order.
  bool on_object_end(std::size_t size, ec_t&) {
    auto object = doc.open_.back();
    auto& n = close(size);
    n.at = static_cast<std::uint32_t>(doc.sorted_keys_.size());
    for (index key = object + 1; key < n.end; key = doc.nodes_[key + 1].end) doc.sorted_keys_.push_back(key);
    auto first = doc.sorted_keys_.begin() + n.at;
    auto by_key = [this](index a, index b) { return key_before(doc.text_of(doc.nodes_[a]), doc.text_of(doc.nodes_[b])); };
    std::sort(first, doc.sorted_keys_.end(), by_key);
    // Sorted, a key is the next one's equal unless it comes before it.
    auto same_key = [&](index a, index b) { return !by_key(a, b); };
    if (std::adjacent_find(first, doc.sorted_keys_.end(), same_key) != doc.sorted_keys_.end()) repeated_key = true;
    return true;
  }
  bool on_array_begin(ec_t&) {
    open(kind::array);
    return true;
  }
  bool on_array_end(std::size_t size, ec_t&) {
    close(size);
    return true;
  }
  bool on_key_part(boost::json::string_view s, std::size_t, ec_t&) {
    append(s);
    return true;
  }
  bool on_key(boost::json::string_view s, std::size_t, ec_t&) {
    finish_string(s);
    return true;
  }
  bool on_string_part(boost::json::string_view s, std::size_t, ec_t&) {
    append(s);
    return true;
  }
  bool on_string(boost::json::string_view s, std::size_t, ec_t&) {
    finish_string(s);
    return true;
  }
  bool on_number_part(boost::json::string_view, ec_t&) { return true; }
  bool on_int64(std::int64_t i, boost::json::string_view, ec_t&) {
    push_scalar(kind::int64, i);
    return true;
  }
  bool on_uint64(std::uint64_t u, boost::json::string_view, ec_t&) {
    push_leaf(kind::uint64).u = u;
    return true;
  }
  bool on_double(double d, boost::json::string_view, ec_t&) {
    if (!std::isfinite(d)) out_of_range = true;
    push_leaf(kind::double_).d = d;
    return true;
  }
  bool on_bool(bool b, ec_t&) {
    push_scalar(kind::boolean, b ? 1 : 0);
    return true;
  }
  bool on_null(ec_t&) {
    push_scalar(kind::null, 0);
    return true;
  }
  bool on_comment_part(boost::json::string_view, ec_t&) { return true; }
  bool on_comment(boost::json::string_view, ec_t&) { return true; }
};

}  // namespace z402::wire
