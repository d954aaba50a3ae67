#include "routes/list_query.hpp"

#include "rules/item_fields.hpp"
#include "z402/rules/text.hpp"
#include "wire/url.hpp"

#include <algorithm>
#include <charconv>
#include <iterator>

namespace z402::routes {

namespace {

constexpr std::size_t max_filter_chars = 256;  // a filter value: a payTo, an asset, a network...

error invalid_filter(std::string field, std::string reason) { return {errc::invalid_filter, std::move(field), std::move(reason)}; }

}  // namespace

expected<query_params> parse_query(std::string_view query) {
  query_params params;
  while (!query.empty()) {
    auto amp = query.find('&');
    auto pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    if (pair.empty()) continue;
    auto eq = pair.find('=');
    auto name = wire::percent_decode(pair.substr(0, eq), wire::percent_decoding::form);
    auto value = wire::percent_decode(eq == std::string_view::npos ? std::string_view{} : pair.substr(eq + 1),
                                      wire::percent_decoding::form);
    // A malformed escape is no parameter's: before it is decoded, a name is not known to be one.
    if (!name || !value) return invalid_filter("", "the query string " + (name ? value : name).error().reason);
    if (!rules::check_shown_text(*value, *name)) {
      return invalid_filter(*name, "parameter " + *name + " is not valid text (invalid UTF-8 or a control character)");
    }
    if (!params.emplace(*name, std::move(*value)).second) {
      return invalid_filter(*name, "parameter " + *name + " is given more than once");
    }
  }
  return params;
}

expected<list_filter> read_filter(const query_params& params) {
  list_filter filter;
  for (auto [name, member] : filter_fields) {
    auto it = params.find(name);
    if (it == params.end()) continue;
    if (it->second.empty() || it->second.size() > max_filter_chars)
      return invalid_filter(name, std::string{"parameter "} + name + " must be 1-" + std::to_string(max_filter_chars) + " characters");
    filter.*member = it->second;
  }
  if (!filter.type.empty() && filter.type != "http" && filter.type != "mcp")
    return invalid_filter("type", "parameter type must be http or mcp");
  if (auto it = params.find("maxAmount"); it != params.end()) {
    filter.max_amount = rules::atomic_units(it->second);
    if (!filter.max_amount)
      return invalid_filter("maxAmount", "parameter maxAmount must be a whole number of atomic units, 0 to 18446744073709551615");
  }
  return filter;
}

std::size_t read_limit(const query_params& params) {
  auto it = params.find("limit");
  if (it == params.end()) return default_list_limit;
  long long v = 0;
  auto& s = it->second;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range) return s.front() == '-' ? 1 : max_list_limit;
  if (ec == std::errc{} && end == s.data() + s.size() && v != 0)
    return static_cast<std::size_t>(std::clamp<long long>(v, 1, max_list_limit));
  return default_list_limit;
}

expected<list_request> parse_list_request(std::string_view query) {
  auto params = parse_query(query);
  if (!params) return params.error();
  return read_list_request(*params);
}

expected<bool> read_flag(const query_params& params, const char* name, bool absent) {
  auto it = params.find(name);
  if (it == params.end()) return absent;
  if (it->second == "1" || it->second == "true") return true;
  if (it->second == "0" || it->second == "false") return false;
  return invalid_filter(name, std::string{"parameter "} + name + " must be 1 or 0 (true or false)");
}

expected<list_request> read_list_request(const query_params& params) {
  auto filter = read_filter(params);
  if (!filter) return filter.error();
  list_request req;
  req.filter = std::move(*filter);
  req.limit = read_limit(params);
  if (auto it = params.find("offset"); it != params.end()) {
    unsigned long long v = 0;
    auto& s = it->second;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || end != s.data() + s.size() || s.empty())
      return invalid_filter("offset", "parameter offset must be a non-negative integer");
    req.offset = static_cast<std::size_t>(v);
  }
  if (auto it = params.find("sort"); it != params.end()) {
    if (it->second != "calls30d") return invalid_filter("sort", "parameter sort must be calls30d (listing order is the default)");
    req.by_calls30d = true;
  }
  auto days = read_flag(params, "callsByDay");
  if (!days) return days.error();
  req.calls_by_day = *days;
  if (auto it = params.find("minCalls30d"); it != params.end()) {
    std::uint64_t v = 0;
    auto& s = it->second;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || end != s.data() + s.size() || s.empty())
      return invalid_filter("minCalls30d", "parameter minCalls30d must be a non-negative integer");
    req.min_calls30d = v;
  }
  return req;
}

const std::vector<std::uint32_t>* filtered_rows(const catalog::snapshot& snap, const list_filter& filter,
                                                std::vector<std::uint32_t>& storage) {
  if (filter.empty()) return nullptr;
  // The matching positions of each filter, merged: the rows are those in every list.
  auto& index = snap.filter_index_of();
  const std::vector<std::uint32_t>* rows = nullptr;
  std::vector<std::uint32_t> both;
  auto narrow = [&](const std::vector<std::uint32_t>& list) {
    if (!rows) return void(rows = &list);
    both.clear();
    std::set_intersection(rows->begin(), rows->end(), list.begin(), list.end(), std::back_inserter(both));
    storage.swap(both);
    rows = &storage;
  };
  for (auto [name, member] : filter_fields) {
    auto& value = filter.*member;
    if (value.empty()) continue;
    auto* list = index.positions(name, value);
    if (!list) {
      storage.clear();
      return &storage;
    }
    narrow(*list);
  }
  if (filter.max_amount) {
    auto priced = index.priced_at_most(filter.asset, *filter.max_amount);
    if (!rows) {
      storage.swap(priced);
      return &storage;
    }
    narrow(priced);
  }
  return rows;
}

void append_items(std::string& out, const catalog::snapshot& snap, const std::vector<std::size_t>& positions,
                  shown_items* shown) {
  if (shown)
    for (auto p : positions) shown->push_back(snap.items[p].get());
  bool comma = false;
  for (auto p : positions) {
    if (comma) out.push_back(',');
    snap.items[p]->append_json(out);
    comma = true;
  }
}

void append_with_days(std::string& out, const catalog::item& it) {
  out.append(it.head()).append(it.tail());
  out.pop_back();
  out.append(R"(,"callsByDay":[)");
  auto days = it.record().usage.by_day(it.rendered_day());
  char digits[12];
  for (std::size_t d = 0; d < days.size(); ++d) {
    if (d) out.push_back(',');
    auto [end, ec] = std::to_chars(digits, digits + sizeof digits, days[d]);
    out.append(digits, end);
  }
  out.append("]}");
}

namespace {

/// A page by the items' 30 days (sort=calls30d or minCalls30d). Sorted with no other filter, the
/// page is a slice of the snapshot's usage order (found by a binary search for minCalls30d);
/// otherwise one walk over the matching rows.
list_page select_by_usage(const catalog::snapshot& snap, const list_request& req, const std::vector<std::uint32_t>* rows) {
  auto& usage = snap.usage_order_of();
  auto min = req.min_calls30d.value_or(0);
  list_page page;
  auto take = [&](std::uint32_t p) {
    if (page.total++ >= req.offset && page.items.size() < req.limit) page.items.push_back(snap.items[p].get());
  };
  if (req.by_calls30d) {
    auto counted = usage.at_least(min);
    if (!rows) {
      page.total = counted;
      for (auto i = req.offset; i < counted && page.items.size() < req.limit; ++i) page.items.push_back(snap.items[usage.by_calls()[i]].get());
      return page;
    }
    for (std::size_t i = 0; i < counted; ++i)
      if (auto p = usage.by_calls()[i]; std::binary_search(rows->begin(), rows->end(), p)) take(p);
    return page;
  }
  if (rows) {
    for (auto p : *rows)
      if (usage.calls30d(p) >= min) take(p);
  } else {
    for (std::uint32_t p = 0; p < snap.items.size(); ++p)
      if (usage.calls30d(p) >= min) take(p);
  }
  return page;
}

}  // namespace

list_page select_list(const catalog::snapshot& snap, const list_request& req) {
  // Unfiltered, the page is a slice and the total is the catalog's size: no walk over every item.
  list_page page;
  std::vector<std::uint32_t> storage;
  if (req.by_calls30d || req.min_calls30d) return select_by_usage(snap, req, filtered_rows(snap, req.filter, storage));
  if (auto* rows = filtered_rows(snap, req.filter, storage)) {
    page.total = rows->size();
    for (auto i = req.offset; i < page.total && page.items.size() < req.limit; ++i) page.items.push_back(snap.items[(*rows)[i]].get());
  } else {
    page.total = snap.items.size();
    for (auto i = req.offset; i < page.total && page.items.size() < req.limit; ++i) page.items.push_back(snap.items[i].get());
  }
  return page;
}

page_content list_content(const list_page& page, const list_request& req) {
  page_content content{req.limit, req.offset, page.total, req.calls_by_day, {}};
  content.serials.reserve(page.items.size());
  for (auto* it : page.items) content.serials.push_back(it->serial());
  return content;
}

http::response_text render_list(const catalog::snapshot_ptr& snap, const list_request& req, shown_items* shown) {
  auto page = select_list(*snap, req);
  if (shown) *shown = page.items;
  return render_list(snap, req, page);
}

http::response_text render_list(const catalog::snapshot_ptr& snap, const list_request& req, const list_page& selected) {
  auto& [page, total] = selected;
  http::response_text out{R"({"x402Version":2,"items":[)"};
  if (req.calls_by_day) {
    // Each item's days are made for this answer, so the page is one string (a page the Services
    // page asks for, every 10 s at most, and cached by its content like any other).
    for (std::size_t i = 0; i < page.size(); ++i) {
      if (i) out.push_back(',');
      append_with_days(out, *page[i]);
    }
  } else {
    out.pieces.reserve(2 * page.size());
    for (std::size_t i = 0; i < page.size(); ++i) {
      auto tail = i + 1 < page.size() ? page[i]->tail_and_comma() : page[i]->tail();
      out.pieces.emplace_back(page[i]->head().data(), page[i]->head().size());
      out.pieces.emplace_back(tail.data(), tail.size());
    }
  }
  out.suffix.append(R"(],"pagination":{"limit":)");
  out.suffix.append(std::to_string(req.limit));
  out.suffix.append(R"(,"offset":)");
  out.suffix.append(std::to_string(req.offset));
  out.suffix.append(R"(,"total":)");
  out.suffix.append(std::to_string(total));
  out.suffix.append("}}");
  out.keep_alive = snap;  // the pieces point into its items
  return out;
}

}  // namespace z402::routes
