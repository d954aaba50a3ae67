#pragma once
// The payments SETTLE has counted, so that a payment reported again is not counted again (issue
// 16: a rail node that retries after a timeout, to this node or another, never double-counts).
// Bounded twice: a payment is remembered for `window` (24 hours) and at most `capacity` are
// (catalog_limits::max_remembered_payments); past the count the oldest is forgotten first.
//
// Compact on purpose, since a busy rail fills it: the records in arrival order in a ring (24
// bytes each) and an open-addressing table of ring positions (linear probing, 4 bytes a slot,
// at most half full), about 32 bytes a payment, grown as it fills rather than all up front.
// A slot's bits above the position hold a tag of the id (11 bits at the default capacity of
// 2^20), so a lookup reads the ring, a cache miss once the ledger outgrows the cache, only for
// a slot whose tag matches: a new payment, the usual case, is found absent in the table alone.
#include "z402/rules/settlement.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace z402::catalog {

/// One counted payment and when it was counted (Unix ms): what the payments file holds.
struct payment_record {
  rules::payment_id id;
  std::int64_t at_ms = 0;
  friend bool operator==(const payment_record&, const payment_record&) = default;
};

class payment_ledger {
 public:
  payment_ledger(std::size_t capacity, std::int64_t window_ms);

  /// Whether `id` was counted within the window before `now_ms`. Forgets what has aged out.
  bool contains(const rules::payment_id& id, std::int64_t now_ms);

  /// Remembers a counted payment, forgetting the oldest when full. Records are added in the
  /// order they were counted (a loaded file is in that order too).
  void insert(const payment_record& record);

  std::size_t size() const { return count_; }
  std::size_t capacity() const { return capacity_; }

 private:
  static constexpr std::uint32_t empty = 0;  // a slot holds a ring position + 1

  std::size_t home(const rules::payment_id& id) const { return static_cast<std::size_t>(id.low) & (slots_.size() - 1); }
  /// The slot that points at ring position `pos` and holds `id`'s tag.
  std::uint32_t slot_of(const rules::payment_id& id, std::size_t pos) const {
    return tag(id) | static_cast<std::uint32_t>(pos + 1);
  }
  /// The top bits of id.high, in a slot's bits above the position (0 when none are free). The
  /// home is taken from id.low, so ids in one probe run rarely share a tag.
  std::uint32_t tag(const rules::payment_id& id) const {
    return position_bits_ == 32 ? 0 : static_cast<std::uint32_t>(id.high >> (32 + position_bits_)) << position_bits_;
  }
  std::size_t position_at(std::size_t slot) const { return (slots_[slot] & position_mask_) - 1; }
  std::size_t find_slot(const rules::payment_id& id) const;  // slots_.size() when absent
  void forget_oldest();
  void erase_slot(std::size_t slot);
  void grow();

  std::size_t capacity_;
  std::int64_t window_ms_;
  std::vector<payment_record> ring_;  // grows to capacity_, then wraps
  std::size_t oldest_ = 0;            // ring position of the oldest record
  std::size_t count_ = 0;
  std::vector<std::uint32_t> slots_;  // a power of two, at least twice count_
  unsigned position_bits_;            // a slot's low bits: a ring position + 1, up to capacity_
  std::uint32_t position_mask_;
};

}  // namespace z402::catalog
