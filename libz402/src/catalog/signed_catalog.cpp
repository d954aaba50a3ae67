#include "z402/catalog/signed_catalog.hpp"

#include "z402/catalog/snapshot.hpp"

namespace z402::catalog {

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
