#pragma once
// GET /discovery/resources: its parameters (docs/contract.md §4, docs/wire.md §1) and its page.
#include "z402/error.hpp"
#include "z402/http/message.hpp"
#include "routes/page_content.hpp"
#include "z402/catalog/snapshot.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace z402::routes {

constexpr std::size_t default_list_limit = 100;
constexpr std::size_t max_list_limit = 1000;

using query_params = std::map<std::string, std::string>;

/// Decodes an application/x-www-form-urlencoded query ("+" is a space, "%3A" a colon).
/// invalid_filter on a malformed escape, invalid UTF-8 or a repeated parameter.
expected<query_params> parse_query(std::string_view query);

/// Filters combine with AND; an empty field does not filter.
struct list_filter {
  std::string type, pay_to, scheme, network, extension, asset;
  /// maxAmount: an accepts entry (of `asset` when given) costs at most this many atomic units.
  std::optional<std::uint64_t> max_amount;
  bool empty() const {
    return type.empty() && pay_to.empty() && scheme.empty() && network.empty() && extension.empty() && asset.empty() &&
           !max_amount;
  }
};

/// Each filter: its query parameter (also its field in the snapshot's filter index) and member.
inline constexpr std::array<std::pair<const char*, std::string list_filter::*>, 6> filter_fields{{
    {"type", &list_filter::type},
    {"payTo", &list_filter::pay_to},
    {"scheme", &list_filter::scheme},
    {"network", &list_filter::network},
    {"extensions", &list_filter::extension},
    {"asset", &list_filter::asset},
}};

/// The positions (ascending) of the items that pass `filter`, from the snapshot's filter index:
/// the index's own list for one filter (no copy), `storage` when several are intersected;
/// nullptr when the filter is empty (every item passes).
const std::vector<std::uint32_t>* filtered_rows(const catalog::snapshot& snap, const list_filter& filter,
                                                std::vector<std::uint32_t>& storage);

struct list_request {
  list_filter filter;
  std::size_t limit = default_list_limit;
  std::size_t offset = 0;
  bool by_calls30d = false;                  // sort=calls30d: most paid in 30 days first, ties in listing order
  std::optional<std::uint64_t> min_calls30d;  // minCalls30d: at least this many paid calls in 30 days
  bool calls_by_day = false;                  // callsByDay=1: each item with its 30 daily counts (the Services page)
};

/// A yes-or-no parameter (`explain`, `callsByDay`): 1 or true, 0 or false; absent is `absent`.
/// invalid_filter naming it for any other value.
expected<bool> read_flag(const query_params& params, const char* name, bool absent = false);

/// The filters shared by list and search (type, payTo, scheme, network, extensions, asset,
/// maxAmount).
expected<list_filter> read_filter(const query_params& params);

/// `limit`: 0 or a non-number means the default; anything else is clamped to 1-1000.
std::size_t read_limit(const query_params& params);

/// Reads the list parameters (filters, limit, offset, sort, minCalls30d); unknown ones are
/// ignored. invalid_filter naming the parameter when one is malformed.
expected<list_request> parse_list_request(std::string_view query);
/// The same from parameters already decoded (the MCP tools pass their arguments here).
expected<list_request> read_list_request(const query_params& params);

/// The items a rendered page shows, in its order (for a summary beside it, e.g. MCP's text).
using shown_items = std::vector<const catalog::item*>;

/// The snapshot's items at `positions`, comma-separated, appended to `out` as a page shows them
/// (search and resource pages; the list gathers its pages without copying).
void append_items(std::string& out, const catalog::snapshot& snap, const std::vector<std::size_t>& positions,
                  shown_items* shown);

/// The item as a page shows it, with its 30 daily counts as a last member, `callsByDay`, oldest
/// first, the last the day its paidCallsToday is of (docs/contract.md §5).
void append_with_days(std::string& out, const catalog::item& it);

/// The items of a list page, in listing order, and how many items match its filter.
struct list_page {
  shown_items items;
  std::size_t total = 0;
};
list_page select_list(const catalog::snapshot& snap, const list_request& req);

/// What the page `req` asks for, selected as `page`, is made of: its bytes are the same at any
/// snapshot where this is the same.
page_content list_content(const list_page& page, const list_request& req);

/// {"x402Version":2,"items":[...],"pagination":{"limit":L,"offset":O,"total":T}}, as a body
/// that gathers the items' own bytes (and keeps the snapshot alive); flatten() for one string.
http::response_text render_list(const catalog::snapshot_ptr& snap, const list_request& req, shown_items* shown = nullptr);
/// The same for a page already selected from `snap`.
http::response_text render_list(const catalog::snapshot_ptr& snap, const list_request& req, const list_page& page);

}  // namespace z402::routes
