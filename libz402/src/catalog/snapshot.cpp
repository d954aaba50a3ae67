#include "z402/catalog/snapshot.hpp"

#include "z402/wire/iso_time.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <unordered_map>

namespace z402::catalog {

listing_items::iterator position_of(const listing_items& items, std::uint64_t seq) {
  return std::lower_bound(items.begin(), items.end(), seq, [](const item_ptr& it, std::uint64_t s) { return it->record().seq < s; });
}

std::shared_ptr<const content_indexes> content_indexes::after(const std::shared_ptr<const snapshot>& previous) {
  auto next = std::make_shared<content_indexes>();
  if (!previous) return next;
  auto& last = *previous->indexes;
  next->content_version_ = last.content_version_ + 1;
  const bool built = last.built_search() != nullptr;
  auto base = built ? previous : last.base_.load();
  const auto base_version = built ? last.content_version_ : last.base_version_;
  if (base && next->content_version_ - base_version <= max_versions_behind) {
    next->base_version_ = base_version;
    next->base_.store(std::move(base));
  }
  return next;
}

const search::index& content_indexes::search(const listing_items& items) const {
  std::call_once(search_built_, [&] {
    std::vector<const search::document*> docs;
    std::vector<std::uint64_t> keys;
    docs.reserve(items.size());
    keys.reserve(items.size());
    for (auto& it : items) {
      docs.push_back(&it->record().content->doc);
      keys.push_back(it->record().seq);
    }
    std::optional<search::index> made;
    if (auto base = base_.exchange(nullptr); base)  // alive to the end of the update
      if (auto* from = base->indexes->built_search()) made = search::index::updated(*from, std::move(docs), std::move(keys));
    search_ = made ? std::make_unique<search::index>(std::move(*made)) : std::make_unique<search::index>(std::move(docs), std::move(keys));
    search_ready_.store(true, std::memory_order_release);
  });
  return *search_;
}

snapshot_ptr make_snapshot(std::uint64_t epoch, std::uint64_t version, listing_items items, std::size_t bytes, std::size_t providers,
                           std::int64_t now_ms, std::shared_ptr<const content_indexes> indexes,
                           std::shared_ptr<const std::vector<payment_record>> payments) {
  auto next = std::make_shared<snapshot>();
  next->epoch = epoch;
  next->version = version;
  next->items = std::move(items);
  next->bytes = bytes;
  next->providers = providers;
  next->published_ms = now_ms;
  if (indexes) next->indexes = std::move(indexes);
  next->payments = std::move(payments);
  return next;
}

std::optional<std::int64_t> rendered_day_of(const snapshot& snap) {
  if (snap.items.empty()) return wire::utc_day(snap.published_ms);
  std::int64_t day = std::numeric_limits<std::int64_t>::min();
  for (auto& it : snap.items) day = std::max(day, it->rendered_day());
  for (auto& it : snap.items) {
    auto shown = it->rendered_day();
    auto& usage = it->record().usage;
    if (shown != day && (usage.on(shown) != usage.on(day) || usage.last_30_days(shown) != usage.last_30_days(day))) return std::nullopt;
  }
  return day;
}

std::vector<std::uint64_t> calls30d_of(const listing_items& items) {
  std::vector<std::uint64_t> calls;
  calls.reserve(items.size());
  for (auto& it : items) calls.push_back(it->record().usage.last_30_days(it->rendered_day()));
  return calls;
}

usage_order::usage_order(const listing_items& items) : totals_(calls30d_of(items)) {
  order_.resize(items.size());
  for (std::uint32_t i = 0; i < order_.size(); ++i) order_[i] = i;
  std::stable_sort(order_.begin(), order_.end(), [&](std::uint32_t a, std::uint32_t b) { return totals_[a] > totals_[b]; });
}

std::size_t usage_order::at_least(std::uint64_t min) const {
  auto end = std::partition_point(order_.begin(), order_.end(), [&](std::uint32_t p) { return totals_[p] >= min; });
  return static_cast<std::size_t>(end - order_.begin());
}

filter_index::filter_index(const listing_items& items) {
  std::vector<std::string_view> keys;
  std::string type;
  for (std::uint32_t i = 0; i < items.size(); ++i) {
    auto& r = items[i]->record();
    keys.clear();
    type.assign("type\x1f").append(r.identity.type);
    keys.push_back(type);
    r.content->for_each_filter_key([&](std::string_view key) { keys.push_back(key); });
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());  // two entries with one payTo count once
    for (auto k : keys) positions_[std::string{k}].push_back(i);
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

identity_index::identity_index(const listing_items& items) {
  std::size_t size = 16;
  while (size < 2 * items.size()) size *= 2;
  slots_.assign(size, 0);
  auto mask = size - 1;
  for (std::size_t i = 0; i < items.size(); ++i) {
    auto h = items[i]->identity_hash();
    auto slot = h & mask;
    while (slots_[slot] != 0) slot = (slot + 1) & mask;
    slots_[slot] = (h >> 32) << 32 | (i + 1);
  }
}

std::vector<std::size_t> identity_index::positions(const listing_items& items, std::string_view type, std::string_view resource,
                                                   std::string_view selector) const {
  std::vector<std::size_t> found;
  auto h = identity_hash(type, resource, selector);
  auto mask = slots_.size() - 1;
  for (auto slot = h & mask; slots_[slot] != 0; slot = (slot + 1) & mask) {
    if (slots_[slot] >> 32 != h >> 32) continue;
    auto position = static_cast<std::size_t>((slots_[slot] & 0xffffffffu) - 1);
    auto& it = *items[position];
    if (it.identity_hash() == h && it.record().identity.type == type && it.record().identity.resource == resource &&
        it.record().identity.selector == selector)
      found.push_back(position);
  }
  std::sort(found.begin(), found.end());  // listing order
  return found;
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
