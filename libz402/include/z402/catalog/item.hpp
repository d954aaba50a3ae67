#pragma once
// One catalog item: its content (what the provider declared or the payer echoed, serialised
// once and shared by every version of the item), what the engine knows of it (item_record),
// and its immutable published form (item) with the pre-serialised JSON a read concatenates.
// A declaration heartbeat or a paid call changes only the small dynamic tail.
#include "z402/catalog/daily_counts.hpp"
#include "z402/rules/declaration.hpp"
#include "z402/search/ranking.hpp"

#include <boost/json/object.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace z402::catalog {

// The content keeps its JSON text, not a JSON tree: a tree costs several times the text, and
// nothing after admission needs one (peak RSS at most 3x the serialised catalog).
struct item_content {
  std::string json;            // DiscoveryResource fields without lastUpdated, lastSeen, paidCallsToday
  // Its keys in the filter index, extracted once (docs/wire.md §1: any accepts entry
  // matches): "field\x1fvalue" for each of an accepts entry's payTo, scheme, network and asset,
  // "extensions\x1fname" for each extension. Packed in one string, each key behind its length
  // (a varint), since a string and a pair per fact cost about 300 bytes an item more
  // (peak RSS at most 3x the serialised catalog).
  std::string filter_keys;
  std::vector<std::pair<std::string, std::uint64_t>> prices;  // (asset, amount) of each accepts entry
  std::string unit;            // extensions.z402.unit, what a price is per ("" when not declared)
  search::document doc;        // its terms, for search

  /// Calls `f` with each filter key, in the order they were added. A truncated packing (a
  /// content that arrived damaged) ends the walk where it breaks.
  template <class F>
  void for_each_filter_key(F&& f) const {
    std::string_view rest = filter_keys;
    while (!rest.empty()) {
      std::size_t length = 0;
      std::size_t at = 0;
      for (unsigned shift = 0;; shift += 7, ++at) {
        if (at == rest.size() || shift > 28) return;
        auto byte = static_cast<unsigned char>(rest[at]);
        length |= static_cast<std::size_t>(byte & 0x7f) << shift;
        if (!(byte & 0x80)) break;
      }
      rest.remove_prefix(at + 1);
      if (length > rest.size()) return;
      f(rest.substr(0, length));
      rest.remove_prefix(length);
    }
  }
};

/// Appends the key "field\x1fvalue" to a content's packed filter keys.
void add_filter_key(std::string& packed, std::string_view field, std::string_view value);

using content_ptr = std::shared_ptr<const item_content>;

/// `selector` is the item's method or toolName (searchable with the route).
content_ptr make_content(const boost::json::object& fields, std::string_view selector);

struct item_record {
  std::string provider;
  rules::item_identity identity;
  content_ptr content;
  bool declared = true;               // false: listed from payments alone
  std::uint64_t seq = 0;              // listing order: first listed first
  std::int64_t last_seen_ms = -1;     // latest declaration; -1 when never declared
  std::int64_t last_updated_ms = 0;   // latest change of content or paid call
  daily_counts usage;                 // settles counted, by UTC day, for the last 30 days

  std::int64_t last_activity_ms() const { return std::max(last_seen_ms, last_updated_ms); }
};

/// A hash of an identity (type, resource, selector): what the identity index files items by.
std::uint64_t identity_hash(std::string_view type, std::string_view resource, std::string_view selector);

/// The UTC day an item is rendered for on `today`: today, or the newest day it counted a paid
/// call on when that is later. A clock that went back counts on the newest day
/// (daily_counts::count), and rendering for the earlier day would hide those calls from
/// paidCallsToday and the 30 days until the clock passed midnight again.
inline std::int64_t rendering_day(const item_record& r, std::int64_t today) { return std::max(today, r.usage.newest_day()); }

class item {
 public:
  /// Renders the item with paidCallsToday and the 30 days' quality as of rendering_day(record, today).
  item(item_record record, std::int64_t today);

  const item_record& record() const { return record_; }
  /// The item as served is `head()` then `tail()`: the content's JSON without its closing
  /// brace (shared by every version of the item: a count or a heartbeat copies none of it),
  /// then listedBy, lastUpdated, lastSeen, paidCallsToday, quality and the brace.
  std::string_view head() const { return std::string_view{record_.content->json}.substr(0, record_.content->json.size() - 1); }
  std::string_view tail() const { return std::string_view{tail_}.substr(0, tail_.size() - 1); }
  /// The tail and the comma that separates it from the next item of a page.
  std::string_view tail_and_comma() const { return tail_; }
  std::size_t json_size() const { return head().size() + tail().size(); }
  void append_json(std::string& out) const { out.append(head()).append(tail()); }
  /// The DiscoveryResource plus lastSeen and paidCallsToday, as served (a copy).
  std::string json() const { return std::string{head()}.append(tail()); }
  /// The UTC day whose paidCallsToday and 30 days `json()` shows.
  std::int64_t rendered_day() const { return rendered_day_; }
  /// identity_hash of its identity, taken once per version.
  std::uint64_t identity_hash() const { return identity_hash_; }
  /// This version's number in the process, never given to another: two pages whose items have
  /// the same serials are the same bytes (http/page_content.hpp), whichever snapshot holds them.
  std::uint64_t serial() const { return serial_; }

 private:
  item_record record_;
  std::string tail_;  // ends with the comma, so a page gathers two pieces per item
  std::int64_t rendered_day_;
  std::uint64_t identity_hash_;
  std::uint64_t serial_;
};

using item_ptr = std::shared_ptr<const item>;
using item_list = std::vector<item_ptr>;

inline item_ptr make_item(item_record record, std::int64_t today) {
  return std::make_shared<const item>(std::move(record), today);
}

}  // namespace z402::catalog
