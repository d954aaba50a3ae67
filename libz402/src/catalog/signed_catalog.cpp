#include "z402/catalog/signed_catalog.hpp"

#include "z402/catalog/snapshot.hpp"
#include "z402/core/gzip.hpp"

namespace z402::catalog {

signed_publication_ptr make_publication(std::uint64_t sequence, std::int64_t expires_ms, std::string sha256, std::string note,
                                        std::string keys_note, std::shared_ptr<const std::string> bytes,
                                        const signed_publication_ptr& before) {
  auto pub = std::make_shared<signed_publication>();
  pub->sequence = sequence;
  pub->expires_ms = expires_ms;
  pub->sha256 = std::move(sha256);
  pub->note = std::move(note);
  pub->keys_note = std::move(keys_note);
  pub->gzip = std::make_shared<const std::string>(compression::gzip(*bytes));
  pub->bytes = std::move(bytes);
  if (before) {
    auto kept = std::make_shared<signed_publication>(*before);
    kept->previous = nullptr;
    pub->previous = std::move(kept);
  }
  return pub;
}

std::string whole_catalog(const snapshot& snap) {
  auto total = std::to_string(snap.items.size());
  std::string out;
  out.reserve(snap.bytes + snap.items.size() + 96);
  out.append(R"({"x402Version":2,"items":[)");
  bool first = true;
  for (auto& item : snap.items) {
    if (!first) out.push_back(',');
    first = false;
    item->append_json(out);
  }
  out.append(R"(],"pagination":{"limit":)").append(total).append(R"(,"offset":0,"total":)").append(total).append("}}");
  return out;
}

}  // namespace z402::catalog
