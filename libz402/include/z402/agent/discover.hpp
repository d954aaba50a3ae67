#pragma once
// The agent's choice, made on its own machine (docs/contract.md §8): rank the catalog by word
// overlap with the intent, and show each resource in terms a person can act on. Every text
// that came from the catalog is made terminal-safe before it is shown, in text or JSON.
#include <boost/json/object.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace z402::agent {

/// Distinct intent words (the search tokenizer's, so both sides agree on what a word is)
/// found in the item's service name, description, tags, billing unit and input parameter names.
std::size_t overlap(const std::vector<std::string>& intent_terms, const boost::json::object& item);

struct ranking {
  std::vector<std::size_t> order;   // item positions, best first; ties keep list order
  std::vector<std::size_t> scores;  // by item position
  std::optional<std::size_t> pick;  // the best, when any intent word matched
};

ranking rank(const std::vector<boost::json::object>& items, std::string_view intent);

/// Liveness from lastSeen (docs/contract.md §5): up <= 75 s, late <= 300 s, down beyond; none, an
/// unreadable timestamp or one more than 90 s in the future: no status.
struct activity {
  std::string status;  // up | late | down | "" (none)
  std::int64_t age_seconds = 0;
  std::int64_t today = 0;  // paidCallsToday
};
activity activity_of(const boost::json::object& item, std::int64_t now_ms);
/// "up 12s today 3", "late 2m today 0", "- today 0".
std::string activity_cell(const activity& a);

/// One resource as printed; every text is terminal-safe.
struct resource_line {
  std::string service_name;
  std::string method;  // or the MCP tool name
  std::string url;
  std::string price;   // "1000 zat/page"
  activity live;
  std::string description;
  std::size_t score = 0;
};
resource_line line_of(const boost::json::object& item, std::int64_t now_ms, std::size_t score);

/// The text report: one line per resource in ranked order, then `pick: METHOD URL` or `pick: none`.
std::string render_text(const std::vector<resource_line>& lines, bool picked);
/// The same as one JSON document.
std::string render_json(const std::vector<resource_line>& lines, bool picked);

}  // namespace z402::agent
