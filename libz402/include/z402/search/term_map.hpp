#pragma once
// Terms to values, for the search index, which a content change rebuilds whole (the first search
// after it waits for that): open addressing with linear probing, at most three quarters full.
// A slot is the value's position and its term's hash, so a probe compares bytes only when the
// hashes match, and the values sit in one vector with their terms, not a node each.
// std::unordered_map spent most of a rebuild hashing, chasing nodes and comparing keys
// (benchmarks/results/profile.md, "a content change searchable").
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

namespace z402::search {

template <class V>
class term_map {
 public:
  struct entry {
    std::string_view term;  // into text that outlives the map
    V value;
  };

  /// The value of `term`, made (V{}) if it is new.
  V& operator[](std::string_view term) {
    if (4 * (entries_.size() + 1) > 3 * slots_.size()) grow();
    auto h = hash_of(term);
    for (auto i = h & mask();; i = (i + 1) & mask()) {
      auto& s = slots_[i];
      if (s.position == empty) {
        s = {static_cast<std::uint32_t>(entries_.size()), static_cast<std::uint32_t>(h)};
        return entries_.emplace_back(entry{term, V{}}).value;
      }
      if (s.hash == static_cast<std::uint32_t>(h) && entries_[s.position].term == term) return entries_[s.position].value;
    }
  }

  /// nullptr when `term` is not in the map.
  const V* find(std::string_view term) const {
    if (entries_.empty()) return nullptr;
    auto h = hash_of(term);
    for (auto i = h & mask();; i = (i + 1) & mask()) {
      auto& s = slots_[i];
      if (s.position == empty) return nullptr;
      if (s.hash == static_cast<std::uint32_t>(h) && entries_[s.position].term == term) return &entries_[s.position].value;
    }
  }

  /// Every term and its value, in the order they were first asked for.
  std::vector<entry>& entries() { return entries_; }
  std::size_t size() const { return entries_.size(); }
  /// Gives back what growing left unused, once nothing more is added.
  void shrink_to_fit() { entries_.shrink_to_fit(); }

 private:
  static constexpr std::uint32_t empty = 0xffffffffu;
  struct slot {
    std::uint32_t position = empty;  // in entries_
    std::uint32_t hash = 0;          // the low half of the term's hash
  };

  static std::size_t hash_of(std::string_view term) { return std::hash<std::string_view>{}(term); }
  std::size_t mask() const { return slots_.size() - 1; }

  void grow() {
    std::vector<slot> bigger(slots_.empty() ? 64 : 2 * slots_.size());
    const auto m = bigger.size() - 1;
    // Below 2^32 slots the low half of a hash, which a slot keeps, places its term as the whole
    // hash does (positions are 32 bits, so there are never more terms than that).
    for (auto& s : slots_) {
      if (s.position == empty) continue;
      auto i = s.hash & m;
      while (bigger[i].position != empty) i = (i + 1) & m;
      bigger[i] = s;
    }
    slots_ = std::move(bigger);
  }

  std::vector<slot> slots_;
  std::vector<entry> entries_;
};

}  // namespace z402::search
