#pragma once
// One catalog item: what the engine knows of it (item_record) and its immutable, published
// form (item) that carries its pre-serialised JSON, so a read only concatenates bytes.
#include "z402/rules/declaration.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace z402::catalog {

struct item_record {
  std::string provider;
  rules::item_identity identity;
  boost::json::object fields;         // DiscoveryResource fields without lastUpdated
  bool declared = true;               // false: listed from payments alone
  std::uint64_t seq = 0;              // listing order: first listed first
  std::int64_t last_seen_ms = -1;     // latest declaration; -1 when never declared
  std::int64_t last_updated_ms = 0;   // latest change of content or paid call
  std::uint64_t paid_calls = 0;       // settles on `paid_day`
  std::int64_t paid_day = 0;          // UTC day number

  std::uint64_t paid_calls_on(std::int64_t day) const { return day == paid_day ? paid_calls : 0; }
  std::int64_t last_activity_ms() const { return std::max(last_seen_ms, last_updated_ms); }
};

class item {
 public:
  /// Serialises the record once, with paidCallsToday as of the UTC day `today`.
  item(item_record record, std::int64_t today);

  const item_record& record() const { return record_; }
  /// The DiscoveryResource plus lastSeen and paidCallsToday, as served.
  std::string_view json() const { return json_; }
  /// The UTC day whose paidCallsToday `json()` shows.
  std::int64_t rendered_day() const { return rendered_day_; }

  // Filter facts, extracted once (bazaar-wire.md §1: any accepts entry matches).
  bool offers(std::string_view field, std::string_view value) const;
  bool has_extension(std::string_view name) const;

 private:
  item_record record_;
  std::string json_;
  std::int64_t rendered_day_;
  std::vector<std::pair<std::string, std::string>> accepts_facts_;  // (field, value)
  std::vector<std::string> extensions_;
};

using item_ptr = std::shared_ptr<const item>;
using item_list = std::vector<item_ptr>;

inline item_ptr make_item(item_record record, std::int64_t today) {
  return std::make_shared<const item>(std::move(record), today);
}

}  // namespace z402::catalog
