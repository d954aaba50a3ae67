#pragma once
// One catalog item: its content (what the provider declared or the payer echoed, serialised
// once and shared by every version of the item), what the engine knows of it (item_record),
// and its immutable published form (item) with the pre-serialised JSON a read concatenates.
// A declaration heartbeat or a paid call changes only the small dynamic tail.
#include "z402/rules/declaration.hpp"
#include "z402/search/ranking.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace z402::catalog {

struct item_content {
  boost::json::object fields;  // DiscoveryResource fields without lastUpdated, lastSeen, paidCallsToday
  std::string json;            // `fields` serialised
  // Filter facts, extracted once (bazaar-wire.md §1: any accepts entry matches).
  std::vector<std::pair<std::string, std::string>> accepts_facts;  // (field, value)
  std::vector<std::string> extensions;
  search::document doc;        // its terms, for search
};

using content_ptr = std::shared_ptr<const item_content>;

/// `selector` is the item's method or toolName (searchable with the route).
content_ptr make_content(boost::json::object fields, std::string_view selector);

struct item_record {
  std::string provider;
  rules::item_identity identity;
  content_ptr content;
  bool declared = true;               // false: listed from payments alone
  std::uint64_t seq = 0;              // listing order: first listed first
  std::int64_t last_seen_ms = -1;     // latest declaration; -1 when never declared
  std::int64_t last_updated_ms = 0;   // latest change of content or paid call
  std::uint64_t paid_calls = 0;       // settles on `paid_day`
  std::int64_t paid_day = 0;          // UTC day number

  const boost::json::object& fields() const { return content->fields; }
  std::uint64_t paid_calls_on(std::int64_t day) const { return day == paid_day ? paid_calls : 0; }
  std::int64_t last_activity_ms() const { return std::max(last_seen_ms, last_updated_ms); }
};

class item {
 public:
  /// Renders the item with paidCallsToday as of the UTC day `today`.
  item(item_record record, std::int64_t today);

  const item_record& record() const { return record_; }
  /// The DiscoveryResource plus lastSeen and paidCallsToday, as served.
  std::string_view json() const { return json_; }
  /// The UTC day whose paidCallsToday `json()` shows.
  std::int64_t rendered_day() const { return rendered_day_; }

 private:
  item_record record_;
  std::string json_;
  std::int64_t rendered_day_;
};

using item_ptr = std::shared_ptr<const item>;
using item_list = std::vector<item_ptr>;

inline item_ptr make_item(item_record record, std::int64_t today) {
  return std::make_shared<const item>(std::move(record), today);
}

}  // namespace z402::catalog
