#pragma once
// Compressed catalog pages, shared by every io thread: a page is compressed once per ETag (a
// snapshot version and a request) and then served from here with no copy and no allocation of
// the page, the answer holding the cached bytes alive until written. Slots are atomic pointers
// chosen by the ETag's hash: a lookup takes no lock. A miss claims the slot for its ETag and
// compresses; a reader that finds the page being compressed by another one does not wait and
// does not compress it again: it is answered uncompressed (gzip is the client's offer, not a
// demand). Right after a new version, when every reader misses at once, the page is compressed
// once instead of once per reader.
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
    std::string body;      // gzip (RFC 1952) of the page
    bool pending = false;  // a claim: another reader is compressing this page
  };

  /// The compressed page for `etag`, compressing `page` on a miss; nullptr when another reader
  /// is compressing it right now (answer `page` as it is).
  std::shared_ptr<const entry> get(std::string_view etag, const response_text& page);

  /// The two steps of `get`. `hit`: the page is cached. `claim`: it was not, and this caller now
  /// compresses it (`fill`). Neither: another caller holds the claim.
  struct lookup {
    std::shared_ptr<const entry> hit;
    std::shared_ptr<const entry> claim;
  };
  lookup find_or_claim(std::string_view etag);
  /// Compresses `page` for a claim and caches it (unless a newer claim took the slot).
  std::shared_ptr<const entry> fill(std::shared_ptr<const entry> claim, const response_text& page);

  telemetry::counter hits;
  telemetry::counter compressions;
  telemetry::counter deferred;  // answered uncompressed while another reader compressed the page

 private:
  static constexpr std::size_t slot_count = 256;
  std::array<std::atomic<std::shared_ptr<const entry>>, slot_count> slots_{};
};

/// gzip of `body` (the gzip wrapper of RFC 1952, level 1: JSON compresses well even so).
std::string gzip(std::string_view body);
/// The same for a page of pieces, streamed through zlib without flattening it first.
std::string gzip(const response_text& page);

}  // namespace z402::http
