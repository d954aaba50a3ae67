#pragma once
// gzip (the wrapper of RFC 1952 around deflate, zlib level 1: JSON compresses well even at the
// fastest level), for the catalog pages the routes compress and the signed catalog's bytes; and
// a gzip member framed around text deflated once, for answers that differ only in a few bytes
// before and after a kept body (an MCP result after its request's id).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace z402::compression {

/// gzip of `parts`, one after the other (`total` bytes in all), streamed through zlib without
/// joining them first.
std::string gzip(std::span<const std::string_view> parts, std::size_t total);

/// gzip of `body`.
std::string gzip(std::string_view body);

/// Text deflated once to be framed many times: raw deflate blocks (RFC 1951) that end on a byte
/// boundary and of which none is final, so that other blocks may come before and after them in
/// one stream; with the text's CRC-32 and length, which a gzip member's trailer holds.
struct deflated {
  std::string blocks;
  std::uint32_t crc = 0;
  std::uint64_t size = 0;
  std::uint32_t crc_past = 0;  // what carries a CRC-32 past the text (zlib's crc32_combine_gen), made once
};

/// `text` deflated (level 1) into blocks that frame_gzip can place in a member.
deflated deflate_blocks(std::string_view text);

/// A gzip member of `head`, `middle`'s text and `tail`: its bytes are `before`, then
/// `middle.blocks` (not copied), then `after`. `head` and `tail` go in stored blocks, as they are
/// (a few bytes each, different in every answer: compressing them would cost more than it saves).
struct gzip_frame {
  std::string before;
  std::string after;
};
gzip_frame frame_gzip(std::string_view head, const deflated& middle, std::string_view tail);

}  // namespace z402::compression
