#include "z402/catalog/item.hpp"

#include "z402/catalog/snapshot.hpp"
#include "z402/rules/item_fields.hpp"

#include "z402/wire/iso_time.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>

namespace z402::catalog {

content_ptr make_content(const boost::json::object& fields, std::string_view selector) {
  auto c = std::make_shared<item_content>();
  c->doc = search::make_document(fields, selector);
  c->json = boost::json::serialize(fields);
  c->json.shrink_to_fit();  // serialize grows its string by doubling: up to half of it unused, for the item's life
  if (auto* accepts = fields.if_contains("accepts"); accepts && accepts->is_array())
    for (auto& entry : accepts->as_array())
      if (auto* obj = entry.if_object())
      {
        for (auto field : {"payTo", "scheme", "network", "asset"})
          if (auto* s = obj->if_contains(field); s && s->is_string())
            c->accepts_facts.emplace_back(field, s->as_string().c_str());
        // The rules admit only decimal strings of positive 64-bit integers as amounts.
        auto* asset = obj->if_contains("asset");
        auto* amount = obj->if_contains("amount");
        if (asset && asset->is_string() && amount && amount->is_string())
          if (auto units = rules::atomic_units(amount->as_string()))
            c->prices.emplace_back(asset->as_string().c_str(), *units);
      }
  if (auto* ext = fields.if_contains("extensions"); ext && ext->is_object())
    for (auto& kv : ext->as_object()) c->extensions.emplace_back(kv.key());
  return c;
}

item::item(item_record record, std::int64_t today) : record_(std::move(record)), rendered_day_(today) {
  tail_.reserve(96);
  // Provenance (issue 18): a route its provider declared, or one seen only in payments.
  tail_.append(record_.declared ? R"(,"listedBy":"declaration")" : R"(,"listedBy":"settlement")");
  tail_.append(R"(,"lastUpdated":")").append(wire::format_iso_ms(record_.last_updated_ms)).append("\"");
  if (record_.last_seen_ms >= 0)
    tail_.append(R"(,"lastSeen":")").append(wire::format_iso_ms(record_.last_seen_ms)).append("\"");
  tail_.append(R"(,"paidCallsToday":)").append(std::to_string(record_.paid_calls_on(today))).append("},");
}

filter_index::filter_index(const item_list& items) {
  std::vector<std::string> keys;
  for (std::uint32_t i = 0; i < items.size(); ++i) {
    auto& r = items[i]->record();
    keys.clear();
    keys.push_back("type\x1f" + r.identity.type);
    for (auto& [field, value] : r.content->accepts_facts) keys.push_back(field + '\x1f' + value);
    for (auto& e : r.content->extensions) keys.push_back("extensions\x1f" + e);
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());  // two entries with one payTo count once
    for (auto& k : keys) positions_[k].push_back(i);
    // Each item's cheapest entry, per asset and over all assets (key ""), for maxAmount.
    std::unordered_map<std::string_view, std::uint64_t> cheapest;
    for (auto& [asset, amount] : r.content->prices)
      for (std::string_view a : {std::string_view{asset}, std::string_view{}}) {
        auto [at, fresh] = cheapest.emplace(a, amount);
        if (!fresh) at->second = std::min(at->second, amount);
      }
    for (auto& [asset, amount] : cheapest) by_price_[std::string{asset}].emplace_back(amount, i);
  }
  for (auto& [asset, rows] : by_price_) std::sort(rows.begin(), rows.end());
}

std::vector<std::uint32_t> filter_index::priced_at_most(std::string_view asset, std::uint64_t max_amount) const {
  std::vector<std::uint32_t> rows;
  auto it = by_price_.find(std::string{asset});
  if (it == by_price_.end()) return rows;
  auto end = std::upper_bound(it->second.begin(), it->second.end(),
                              std::pair{max_amount, std::numeric_limits<std::uint32_t>::max()});
  rows.reserve(static_cast<std::size_t>(end - it->second.begin()));
  for (auto p = it->second.begin(); p != end; ++p) rows.push_back(p->second);
  std::sort(rows.begin(), rows.end());  // listing order
  return rows;
}

const std::vector<std::uint32_t>* filter_index::positions(std::string_view field, std::string_view value) const {
  std::string key{field};
  key += '\x1f';
  key += value;
  auto it = positions_.find(key);
  return it == positions_.end() ? nullptr : &it->second;
}

}  // namespace z402::catalog
