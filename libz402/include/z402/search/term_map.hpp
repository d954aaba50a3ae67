#pragma once
// Terms to values, for the search index (the first search after a content change waits for it to
// be built or updated): open addressing with linear probing, at most three quarters full.
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

  /// What the methods that take a hash want: the term's.
  static std::size_t hash_of(std::string_view term) { return std::hash<std::string_view>{}(term); }

  /// The value of `term`, made (V{}) if it is new.
  V& operator[](std::string_view term) { return get(term, hash_of(term)); }
  /// The value of `term` whose hash_of is `h`, made (V{}) if it is new.
  V& get(std::string_view term, std::size_t h) {
    if (4 * (entries_.size() + 1) > 3 * slots_.size()) grow();
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
  const V* find(std::string_view term) const { return find(term, hash_of(term)); }
  const V* find(std::string_view term, std::size_t h) const {
    auto i = slot_of(term, h);
    return i == npos ? nullptr : &entries_[slots_[i].position].value;
  }
  /// The entry of `term` (nullptr when it is not in the map): its value, and its term to point
  /// at other text with the same bytes.
  entry* entry_of(std::string_view term, std::size_t h) {
    auto i = slot_of(term, h);
    return i == npos ? nullptr : &entries_[slots_[i].position];
  }

  /// Removes `term` if the map holds it; the last entry takes its place in entries().
  void erase(std::string_view term, std::size_t h) {
    auto i = slot_of(term, h);
    if (i == npos) return;
    const auto position = slots_[i].position;
    // Backward-shift deletion: a later slot of the run moves into the hole unless its home slot
    // lies in (hole, slot] cyclically, where a probe for it would not pass the hole.
    for (auto j = (i + 1) & mask(); slots_[j].position != empty; j = (j + 1) & mask()) {
      const auto home = slots_[j].hash & mask();
      if (i <= j ? (i < home && home <= j) : (i < home || home <= j)) continue;
      slots_[i] = slots_[j];
      i = j;
    }
    slots_[i].position = empty;
    const auto last = static_cast<std::uint32_t>(entries_.size() - 1);
    if (position != last) {
      auto k = hash_of(entries_[last].term) & mask();
      while (slots_[k].position != last) k = (k + 1) & mask();
      slots_[k].position = position;
      entries_[position] = std::move(entries_[last]);
    }
    entries_.pop_back();
  }

  /// Every term and its value, in the order they were first asked for (but for erase).
  std::vector<entry>& entries() { return entries_; }
  const std::vector<entry>& entries() const { return entries_; }
  std::size_t size() const { return entries_.size(); }
  /// Gives back what growing left unused, once nothing more is added.
  void shrink_to_fit() { entries_.shrink_to_fit(); }

 private:
  static constexpr std::uint32_t empty = 0xffffffffu;
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
  struct slot {
    std::uint32_t position = empty;  // in entries_
    std::uint32_t hash = 0;          // the low half of the term's hash
  };

  std::size_t mask() const { return slots_.size() - 1; }

  /// The slot of `term`, npos when it is not in the map.
  std::size_t slot_of(std::string_view term, std::size_t h) const {
    if (entries_.empty()) return npos;
    for (auto i = h & mask();; i = (i + 1) & mask()) {
      auto& s = slots_[i];
      if (s.position == empty) return npos;
      if (s.hash == static_cast<std::uint32_t>(h) && entries_[s.position].term == term) return i;
    }
  }

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
