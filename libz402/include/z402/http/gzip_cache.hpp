#pragma once
// Compressed catalog pages, shared by every io thread: a page is compressed once per ETag (a
// snapshot version and a request) and then served from here with no copy and no allocation of
// the page, the answer holding the cached bytes alive until written. Slots are atomic pointers
// chosen by the ETag's hash: a lookup takes no lock, and a miss compresses without holding
// anything other readers wait on (two threads missing the same page at once may both
// compress it; the last one stays).
#include "z402/http/message.hpp"
#include "z402/telemetry/metrics.hpp"

#include <array>
#include <atomic>
#include <memory>
#include <string>
#include <string_view>

namespace z402::http {

class gzip_cache {
 public:
  struct entry {
    std::string etag;
    std::string body;  // gzip (RFC 1952) of the page
  };

  /// The compressed page for `etag`, compressing `page` on a miss.
  std::shared_ptr<const entry> get(std::string_view etag, const response_text& page);

  telemetry::counter hits;
  telemetry::counter compressions;

 private:
  static constexpr std::size_t slot_count = 256;
  std::array<std::atomic<std::shared_ptr<const entry>>, slot_count> slots_{};
};

/// gzip of `body` (the gzip wrapper of RFC 1952, level 1: JSON compresses well even so).
std::string gzip(std::string_view body);
/// The same for a page of pieces, streamed through zlib without flattening it first.
std::string gzip(const response_text& page);

}  // namespace z402::http
