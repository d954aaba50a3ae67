#include "z402/core/gzip.hpp"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <stdexcept>

namespace z402::compression {
namespace {

/// Output buffers grown past this (a whole signed catalog's, not a page's) are let go after use.
constexpr std::size_t kept_buffer_bytes = 4u << 20;

/// One deflate stream per thread and kind, reset between texts, and its output buffer: a text's
/// compression allocates only its result. (deflateInit2 allocates about 256 KiB of state and
/// the output was a zeroed buffer of deflateBound bytes: fresh pages to fault in on every
/// compression, and TLB-shootdown IPIs when freed, a third of the server's time under writes.)
class deflater {
 public:
  /// `window_bits`: 15 + 16 for the gzip wrapper, -15 for raw deflate.
  explicit deflater(int window_bits) {
    if (deflateInit2(&zs_, Z_BEST_SPEED, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY) != Z_OK)
      throw std::runtime_error("zlib: deflateInit2 failed");
  }
  ~deflater() { deflateEnd(&zs_); }
  deflater(const deflater&) = delete;
  deflater& operator=(const deflater&) = delete;

  /// `parts` compressed, the stream ended by `last_flush`: Z_FINISH (a whole stream) or
  /// Z_SYNC_FLUSH (blocks that end on a byte boundary, none final).
  std::string compress(std::span<const std::string_view> parts, std::size_t total, int last_flush) {
    if (deflateReset(&zs_) != Z_OK) throw std::runtime_error("zlib: deflateReset failed");
    // A sync flush adds an empty stored block (5 bytes) the bound does not count.
    auto bound = deflateBound(&zs_, total) + 16;
    if (out_.size() < bound) out_.resize(bound);
    zs_.next_out = reinterpret_cast<Bytef*>(out_.data());
    zs_.avail_out = static_cast<uInt>(bound);
    int rc = Z_OK;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      auto p = parts[i];
      zs_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(p.data()));
      zs_.avail_in = static_cast<uInt>(p.size());
      rc = deflate(&zs_, i + 1 == parts.size() ? last_flush : Z_NO_FLUSH);
    }
    bool done = last_flush == Z_FINISH ? rc == Z_STREAM_END : rc == Z_OK && zs_.avail_in == 0 && zs_.avail_out > 0;
    if (!done) throw std::runtime_error("zlib: deflate failed");
    std::string result{out_.data(), zs_.total_out};
    if (out_.size() > kept_buffer_bytes) std::string{}.swap(out_);
    return result;
  }

 private:
  z_stream zs_{};
  std::string out_;  // grows to the largest text's bound and stays (up to kept_buffer_bytes)
};

void put_le32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

/// `bytes` as stored blocks (RFC 1951 3.2.4: a header byte on a byte boundary, LEN, its one's
/// complement, the bytes; 65,535 at most each), the last of them final when `final`.
void put_stored(std::string& out, std::string_view bytes, bool final) {
  constexpr std::size_t most = 0xffff;
  do {
    auto n = std::min(bytes.size(), most);
    bool last = n == bytes.size();
    out.push_back(static_cast<char>(final && last ? 1 : 0));  // BFINAL, BTYPE 00, padding
    out.push_back(static_cast<char>(n & 0xff));
    out.push_back(static_cast<char>(n >> 8));
    out.push_back(static_cast<char>(~n & 0xff));
    out.push_back(static_cast<char>((~n >> 8) & 0xff));
    out.append(bytes.substr(0, n));
    bytes.remove_prefix(n);
  } while (!bytes.empty());
}

std::uint32_t crc_of(std::uint32_t crc, std::string_view bytes) {
  return static_cast<std::uint32_t>(crc32(crc, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(bytes.size())));
}

}  // namespace

std::string gzip(std::span<const std::string_view> parts, std::size_t total) {
  thread_local deflater d{15 + 16};
  return d.compress(parts, total, Z_FINISH);
}

std::string gzip(std::string_view body) { return gzip(std::array<std::string_view, 1>{body}, body.size()); }

deflated deflate_blocks(std::string_view text) {
  thread_local deflater d{-15};
  return {d.compress(std::array<std::string_view, 1>{text}, text.size(), Z_SYNC_FLUSH), crc_of(0, text), text.size(),
          static_cast<std::uint32_t>(crc32_combine_gen(static_cast<z_off_t>(text.size())))};
}

gzip_frame frame_gzip(std::string_view head, const deflated& middle, std::string_view tail) {
  // RFC 1952 2.3: magic, CM 8 (deflate), no flags, no time, XFL 0, OS 255 (unknown).
  gzip_frame f;
  f.before.reserve(10 + 5 + head.size());
  f.before.append("\x1f\x8b\x08\0\0\0\0\0\0\xff", 10);
  if (!head.empty()) put_stored(f.before, head, false);
  f.after.reserve(5 + tail.size() + 8);
  put_stored(f.after, tail, true);
  auto crc = crc_of(0, head);
  crc = static_cast<std::uint32_t>(crc32_combine_op(crc, middle.crc, middle.crc_past));
  crc = crc_of(crc, tail);
  put_le32(f.after, crc);
  put_le32(f.after, static_cast<std::uint32_t>(head.size() + middle.size + tail.size()));  // ISIZE: the length mod 2^32
  return f;
}

}  // namespace z402::compression
