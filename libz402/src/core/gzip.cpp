#include "z402/core/gzip.hpp"

#include <zlib.h>

#include <array>
#include <stdexcept>

namespace z402::compression {
namespace {

/// Output buffers grown past this (a whole signed catalog's, not a page's) are let go after use.
constexpr std::size_t kept_buffer_bytes = 4u << 20;

/// One deflate stream per thread, reset between pages, and its output buffer: a page's
/// compression allocates only its result. (deflateInit2 allocates about 256 KiB of state and
/// the output was a zeroed buffer of deflateBound bytes: fresh pages to fault in on every
/// compression, and TLB-shootdown IPIs when freed, a third of the server's time under writes.)
class deflater {
 public:
  deflater() {
    // windowBits 15 + 16: the gzip wrapper.
    if (deflateInit2(&zs_, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
      throw std::runtime_error("zlib: deflateInit2 failed");
  }
  ~deflater() { deflateEnd(&zs_); }
  deflater(const deflater&) = delete;
  deflater& operator=(const deflater&) = delete;

  std::string compress(std::span<const std::string_view> parts, std::size_t total) {
    if (deflateReset(&zs_) != Z_OK) throw std::runtime_error("zlib: deflateReset failed");
    auto bound = deflateBound(&zs_, total);
    if (out_.size() < bound) out_.resize(bound);
    zs_.next_out = reinterpret_cast<Bytef*>(out_.data());
    zs_.avail_out = static_cast<uInt>(bound);
    int rc = Z_OK;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      auto p = parts[i];
      zs_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(p.data()));
      zs_.avail_in = static_cast<uInt>(p.size());
      rc = deflate(&zs_, i + 1 == parts.size() ? Z_FINISH : Z_NO_FLUSH);
    }
    if (rc != Z_STREAM_END) throw std::runtime_error("zlib: deflate failed");
    std::string result{out_.data(), zs_.total_out};
    if (out_.size() > kept_buffer_bytes) std::string{}.swap(out_);
    return result;
  }

 private:
  z_stream zs_{};
  std::string out_;  // grows to the largest page's bound and stays (up to kept_buffer_bytes)
};

}  // namespace

std::string gzip(std::span<const std::string_view> parts, std::size_t total) {
  thread_local deflater d;
  return d.compress(parts, total);
}

std::string gzip(std::string_view body) { return gzip(std::array<std::string_view, 1>{body}, body.size()); }

}  // namespace z402::compression
