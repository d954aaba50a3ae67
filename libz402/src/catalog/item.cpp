#include "z402/catalog/item.hpp"

#include "z402/wire/iso_time.hpp"

#include <boost/json/serialize.hpp>

namespace z402::catalog {

item::item(item_record record, std::int64_t today) : record_(std::move(record)), rendered_day_(today) {
  // Field order as bazaar-wire.md §1 shows it; lastUpdated right after the required fields.
  boost::json::object out;
  out.reserve(record_.fields.size() + 3);
  for (auto key : {"resource", "type", "x402Version", "accepts"})
    if (auto* v = record_.fields.if_contains(key)) out[key] = *v;
  out["lastUpdated"] = wire::format_iso_ms(record_.last_updated_ms);
  for (auto& kv : record_.fields)
    if (!out.contains(kv.key())) out[kv.key()] = kv.value();
  if (record_.last_seen_ms >= 0) out["lastSeen"] = wire::format_iso_ms(record_.last_seen_ms);
  out["paidCallsToday"] = record_.paid_calls_on(today);
  json_ = boost::json::serialize(out);

  if (auto* accepts = record_.fields.if_contains("accepts"); accepts && accepts->is_array())
    for (auto& entry : accepts->as_array())
      if (auto* obj = entry.if_object())
        for (auto field : {"payTo", "scheme", "network", "asset"})
          if (auto* s = obj->if_contains(field); s && s->is_string())
            accepts_facts_.emplace_back(field, s->as_string().c_str());
  if (auto* ext = record_.fields.if_contains("extensions"); ext && ext->is_object())
    for (auto& kv : ext->as_object()) extensions_.emplace_back(kv.key());
}

bool item::offers(std::string_view field, std::string_view value) const {
  for (auto& [f, v] : accepts_facts_)
    if (f == field && v == value) return true;
  return false;
}

bool item::has_extension(std::string_view name) const {
  for (auto& e : extensions_)
    if (e == name) return true;
  return false;
}

}  // namespace z402::catalog
