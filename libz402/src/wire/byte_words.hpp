#pragma once
// Eight bytes of text tested at once, for the loops that look for the few bytes JSON treats
// specially in a long plain run: flat_json.cpp writing a canonical string, flat_json_scan.cpp
// reading one. Each test gives a mask with 0x80 set in exactly the bytes that pass it (no carry
// crosses a byte, since no byte's sum exceeds 0xFE), so the first such byte is found by counting
// zero bits, not by a second loop over the word.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace z402::wire::byte_words {

constexpr std::uint64_t ones = ~std::uint64_t{0} / 255;
constexpr std::uint64_t highs = ones * 0x80;
constexpr std::uint64_t lows = ones * 0x7F;

/// The eight bytes at `at`, whatever their alignment, the first in the lowest bits.
inline std::uint64_t load(const char* at) {
  std::uint64_t word;
  std::memcpy(&word, at, sizeof word);
  if constexpr (std::endian::native == std::endian::big) word = __builtin_bswap64(word);
  return word;
}

/// The bytes of `word` below `n` (1 <= n <= 0x80).
constexpr std::uint64_t below(std::uint64_t word, unsigned n) { return ~(((word & lows) + ones * (0x80 - n)) | word) & highs; }

/// The bytes of `word` equal to `c`.
constexpr std::uint64_t equal(std::uint64_t word, unsigned char c) { return below(word ^ (ones * c), 1); }

/// The bytes of `word` at 0x80 or above (not ASCII).
constexpr std::uint64_t high(std::uint64_t word) { return word & highs; }

/// The position of the first byte a non-zero mask marks.
constexpr std::size_t first(std::uint64_t mask) { return static_cast<std::size_t>(std::countr_zero(mask)) / 8; }

/// The first byte in [at, end) that `marks` (a test above, or several or-ed) marks, or `end`:
/// eight bytes a step, then the last few one at a time, each alone in the lowest byte of a word
/// (the tests are exact per byte, so its bit 7 is that byte's answer).
template <class Marks>
const char* first_marked(const char* at, const char* end, Marks marks) {
  for (; end - at >= 8; at += 8)
    if (auto marked = marks(load(at))) return at + first(marked);
  for (; at != end; ++at)
    if (marks(std::uint64_t{static_cast<unsigned char>(*at)}) & 0x80) return at;
  return at;
}

}  // namespace z402::wire::byte_words
