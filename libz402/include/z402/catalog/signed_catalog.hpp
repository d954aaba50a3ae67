#pragma once
// The signed catalog a node serves (docs/trust.md): the whole catalog's bytes, named by their
// SHA-256, the catalog note that signs them and the keys note that delegates its key. A primary's
// SIGNER makes them (signer_actor.hpp); a follower serves its primary's, as they came through the
// feed: every node, and any static mirror, serves the same bytes.
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace z402::catalog {

/// One publication: immutable once made, shared by every reader that loaded it.
struct signed_publication {
  std::uint64_t sequence = 0;
  std::int64_t expires_ms = 0;  // the catalog note's
  std::string sha256;           // 32 raw bytes: the name of `bytes`
  std::string note;             // the catalog note, signed by the online key
  std::string keys_note;        // the keys note, signed by the root key
  std::shared_ptr<const std::string> bytes;  // {"x402Version":2,"items":[...],"pagination":...}
  std::shared_ptr<const std::string> gzip;   // the same, gzip (what most clients ask for)
  /// The publication before this one, bytes and all, so an agent that read the note just
  /// before a new one was made still finds the bytes it names; its own `previous` is let go.
  std::shared_ptr<const signed_publication> previous;
};
using signed_publication_ptr = std::shared_ptr<const signed_publication>;

/// Where readers find the newest publication (null: the catalog is not signed, or not yet).
class signed_store {
 public:
  void publish(signed_publication_ptr next) { current_.store(std::move(next), std::memory_order_release); }
  signed_publication_ptr load() const { return current_.load(std::memory_order_acquire); }

 private:
  std::atomic<signed_publication_ptr> current_;
};

/// The publication of `bytes` under `note` (with its sequence, expiry and the bytes' SHA-256),
/// their gzip made here, and `before` (without its own previous) kept as the one before.
signed_publication_ptr make_publication(std::uint64_t sequence, std::int64_t expires_ms, std::string sha256, std::string note,
                                        std::string keys_note, std::shared_ptr<const std::string> bytes,
                                        const signed_publication_ptr& before);

/// The whole catalog's bytes for `snap`: the list's shape, every item in listing order, with
/// pagination {"limit":N,"offset":0,"total":N}.
std::string whole_catalog(const struct snapshot& snap);

}  // namespace z402::catalog
