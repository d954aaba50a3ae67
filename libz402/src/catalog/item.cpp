#include "z402/catalog/item.hpp"

#include "rules/item_fields.hpp"

#include "z402/wire/iso_time.hpp"
#include "z402/wire/json.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <atomic>
#include <functional>

namespace z402::catalog {

void add_filter_key(std::string& packed, std::string_view field, std::string_view value) {
  auto length = field.size() + 1 + value.size();
  do {
    auto byte = static_cast<unsigned char>(length & 0x7f);
    length >>= 7;
    packed.push_back(static_cast<char>(length ? byte | 0x80 : byte));
  } while (length);
  packed.append(field).append(1, '\x1f').append(value);
}

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
            add_filter_key(c->filter_keys, field, s->as_string());
        // The rules admit only decimal strings of positive 64-bit integers as amounts.
        auto* asset = obj->if_contains("asset");
        auto* amount = obj->if_contains("amount");
        if (asset && asset->is_string() && amount && amount->is_string())
          if (auto units = rules::atomic_units(amount->as_string()))
            c->prices.emplace_back(asset->as_string().c_str(), *units);
      }
  if (auto* ext = fields.if_contains("extensions"); ext && ext->is_object())
    for (auto& kv : ext->as_object()) add_filter_key(c->filter_keys, "extensions", kv.key());
  if (auto* unit = wire::find_path(fields, {"extensions", "z402", "unit"}); unit && unit->is_string())
    c->unit = unit->get_string();
  c->filter_keys.shrink_to_fit();
  return c;
}

std::uint64_t identity_hash(std::string_view type, std::string_view resource, std::string_view selector) {
  std::hash<std::string_view> h;
  std::uint64_t x = h(type);
  for (auto part : {resource, selector}) x = (x ^ h(part)) * 0x9e3779b97f4a7c15ull;
  return x;
}

namespace {

std::uint64_t next_serial() {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

item::item(item_record record, std::int64_t today)
    : record_(std::move(record)),
      rendered_day_(rendering_day(record_, today)),
      identity_hash_(catalog::identity_hash(record_.identity.type, record_.identity.resource, record_.identity.selector)),
      serial_(next_serial()) {
  // The longest tail: listedBy "declaration", two times, 20 digits of paid calls, the quality block.
  tail_.reserve(26 + 16 + 24 + 1 + 13 + 24 + 1 + 18 + 20 + 33 + 20 + 17 + 24 + 4);
  // Provenance: a route its provider declared, or one seen only in payments.
  tail_.append(record_.declared ? R"(,"listedBy":"declaration")" : R"(,"listedBy":"settlement")");
  tail_.append(R"(,"lastUpdated":")");
  wire::append_iso_ms(tail_, record_.last_updated_ms);
  tail_.append("\"");
  if (record_.last_seen_ms >= 0) {
    tail_.append(R"(,"lastSeen":")");
    wire::append_iso_ms(tail_, record_.last_seen_ms);
    tail_.append("\"");
  }
  tail_.append(R"(,"paidCallsToday":)").append(std::to_string(record_.usage.on(rendered_day_)));
  // CDP's names, so a client reading its quality block reads ours; lastCalledAt only when known.
  tail_.append(R"(,"quality":{"l30DaysTotalCalls":)").append(std::to_string(record_.usage.last_30_days(rendered_day_)));
  if (record_.usage.last_called_ms() >= 0) {
    tail_.append(R"(,"lastCalledAt":")");
    wire::append_iso_ms(tail_, record_.usage.last_called_ms());
    tail_.append("\"");
  }
  tail_.append("}},");
}

}  // namespace z402::catalog
