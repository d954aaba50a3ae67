#include "z402/catalog/payment_ledger.hpp"

#include <algorithm>
#include <bit>
#include <limits>

namespace z402::catalog {

payment_ledger::payment_ledger(std::size_t capacity, std::int64_t window_ms)
    // A slot holds a ring position + 1 in 32 bits.
    : capacity_(std::min<std::size_t>(capacity, std::numeric_limits<std::uint32_t>::max() - 1)),
      window_ms_(window_ms),
      position_bits_(std::max(1u, static_cast<unsigned>(std::bit_width(capacity_)))),
      position_mask_(position_bits_ == 32 ? ~std::uint32_t{0} : (std::uint32_t{1} << position_bits_) - 1) {}

bool payment_ledger::contains(const rules::payment_id& id, std::int64_t now_ms) {
  while (count_ > 0 && ring_[oldest_].at_ms <= now_ms - window_ms_) forget_oldest();
  return find_slot(id) != slots_.size();
}

void payment_ledger::insert(const payment_record& record) {
  if (capacity_ == 0 || find_slot(record.id) != slots_.size()) return;
  if (count_ == capacity_) forget_oldest();
  if ((count_ + 1) * 2 > slots_.size()) grow();
  std::size_t pos;
  if (ring_.size() < capacity_) {
    // Still filling: the live records are ring_[oldest_, size), so the next one goes at the end.
    if (ring_.size() == ring_.capacity()) ring_.reserve(std::min(capacity_, std::max<std::size_t>(1024, ring_.capacity() * 2)));
    pos = ring_.size();
    ring_.push_back(record);
  } else {
    oldest_ %= capacity_;
    pos = (oldest_ + count_) % capacity_;
    ring_[pos] = record;
  }
  auto mask = slots_.size() - 1;
  auto slot = home(record.id);
  while (slots_[slot] != empty) slot = (slot + 1) & mask;
  slots_[slot] = slot_of(record.id, pos);
  ++count_;
}

std::size_t payment_ledger::find_slot(const rules::payment_id& id) const {
  if (slots_.empty()) return 0;
  auto mask = slots_.size() - 1;
  auto wanted = tag(id);
  for (auto slot = home(id); slots_[slot] != empty; slot = (slot + 1) & mask)
    if ((slots_[slot] & ~position_mask_) == wanted && ring_[position_at(slot)].id == id) return slot;
  return slots_.size();
}

void payment_ledger::forget_oldest() {
  erase_slot(find_slot(ring_[oldest_].id));
  ++oldest_;
  if (ring_.size() == capacity_) oldest_ %= capacity_;
  --count_;
}

// Backward-shift deletion: every entry after the hole in its probe run moves into the hole
// unless its home lies cyclically in (hole, entry], so no lookup ever stops at a false gap.
void payment_ledger::erase_slot(std::size_t hole) {
  auto mask = slots_.size() - 1;
  for (auto next = (hole + 1) & mask; slots_[next] != empty; next = (next + 1) & mask) {
    auto home_of_next = home(ring_[position_at(next)].id);
    bool stays = hole <= next ? (hole < home_of_next && home_of_next <= next) : (hole < home_of_next || home_of_next <= next);
    if (!stays) {
      slots_[hole] = slots_[next];
      hole = next;
    }
  }
  slots_[hole] = empty;
}

void payment_ledger::grow() {
  auto size = std::max<std::size_t>(16, slots_.size());
  while ((count_ + 1) * 2 > size) size *= 2;
  slots_.assign(size, empty);
  auto mask = size - 1;
  for (std::size_t k = 0; k < count_; ++k) {
    auto pos = (oldest_ + k) % ring_.size();
    auto slot = home(ring_[pos].id);
    while (slots_[slot] != empty) slot = (slot + 1) & mask;
    slots_[slot] = slot_of(ring_[pos].id, pos);
  }
}

}  // namespace z402::catalog
