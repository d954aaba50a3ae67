#pragma once
// A JSON document read strictly into one flat array of nodes, for a body read once for a few
// fields and its canonical text: a settle body (rules/settlement.hpp). Boost's tree costs an
// allocation per node and a hash table per object, and building it was two thirds of the parse
// of every settle (profile.md, 2026-12-04); here the nodes and the unescaped text go into two
// arrays that a reader reuses from one document to the next, and a document is not copied.
//
// Accepts exactly what wire::parse_strict accepts and refuses the rest with its reasons. A text in
// the common form (ASCII or UTF-8, short escapes, integers) is read by a scanner of its own
// (src/wire/flat_json_scan.hpp); any other goes through the same tokenizer as parse_strict
// (Boost's basic_parser, the same options). Duplicate keys are found when each object closes,
// numbers beyond a double's range refused. The json_strict fuzz target checks all three agree.
#include "z402/error.hpp"

#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace z402::wire {

class flat_json {
 public:
  /// A node's position; `absent` stands for a value that is not there, and every query below
  /// takes it and answers "absent", so a path is a chain of member() calls with no checks.
  using index = std::uint32_t;
  static constexpr index absent = ~index{0};
  static constexpr index root = 0;

  /// Reads `text` in place of what this reader held (its arrays keep their capacity): refused
  /// like wire::parse_strict, with its reasons. Views it returned before are invalid after, and
  /// views it returns may point into `text`, which must outlive them.
  expected<void> read(std::string_view text, std::size_t max_depth);

  /// The value of `key` in the object at `at`: absent when `at` is absent, not an object, or
  /// has no such key. A binary search of the object's keys, which are kept sorted.
  index member(index at, std::string_view key) const;
  bool is_object(index at) const;
  /// The string at `at`, unescaped; nullopt when `at` is absent or not a string.
  std::optional<std::string_view> string_at(index at) const;
  /// The integer at `at` when it is one Boost reads as an int64 (not a uint64 or a double).
  std::optional<std::int64_t> int64_at(index at) const;

  /// The value at `at` with every object's keys in byte order and no white space, appended to
  /// `out`: two documents that differ only in key order or spacing have the same canonical
  /// text (a payment's identity, rules/settlement.hpp). The text Boost's tree gave before
  ///: integers as they read, doubles in Boost's shortest round trip, strings escaped
  /// only where JSON must be ('"', '\\', below 0x20 as \u00XX).
  void write_canonical(index at, std::string& out) const;

  /// The value at `at` as Boost's tree, keys in the order of the text (as boost::json::parse
  /// keeps them): for the rules that check a tree, on the rare path that needs one.
  boost::json::value to_value(index at) const;

 private:
  enum class kind : std::uint8_t { object, array, string, int64, uint64, double_, boolean, null };
  struct node {
    kind type;
    std::uint32_t size;  // an object's members, an array's elements, a string's bytes
    std::uint32_t end;   // one past the last node of the value (a scalar: its own index + 1)
    std::uint32_t at;    // an object's first entry in sorted_keys_
    union {
      std::int64_t i;
      std::uint64_t u;
      double d;
      const char* s;  // a string's first byte: in the text read, or in text_ when it was unescaped
    };
  };
  friend struct flat_json_builder;

  std::string_view text_of(const node& n) const { return {n.s, n.size}; }
  void clear();

  std::vector<node> nodes_;  // in document order; an object's member is its key's node, then the value's
  // The keys and strings that had to be unescaped, one after the other. Reserved at the size of
  // the text read before reading (unescaping never lengthens a string), so it never moves while
  // nodes point into it.
  std::string text_;
  std::vector<index> sorted_keys_;  // each object's key nodes in byte order of the keys
  std::vector<index> open_;         // while reading: the objects and arrays not yet closed
};

}  // namespace z402::wire
