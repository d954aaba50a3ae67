#pragma once
// The agent's choice, made on its own machine (docs/contract.md §8): rank the catalog read with
// the server's own search (the same documents, query expansion and BM25F), and show each
// resource in terms a person can act on. Every text
// that came from the catalog is made terminal-safe before it is shown, in text or JSON.
#include "z402/agent/origin_binding.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace z402::agent {

struct ranking {
  std::vector<std::size_t> order;   // item positions, best first, then those matching nothing; ties keep list order
  std::vector<double> scores;       // by item position; 0 for no match
  std::optional<std::size_t> pick;  // the best, when any intent word matched
  std::vector<std::string> why;     // by item position, with `explain`: search/explain.hpp's line
};

/// The items ranked for `intent` as GET /discovery/search would rank them in a catalog of
/// these items alone (but for its three-per-origin rule: the agent sees every item).
ranking rank(const std::vector<boost::json::object>& items, std::string_view intent, bool explain = false);

/// Liveness from lastSeen (docs/contract.md §5): up <= 75 s, late <= 300 s, down beyond; none, an
/// unreadable timestamp or one more than 90 s in the future: no status.
struct activity {
  std::string status;  // up | late | down | "" (none)
  std::int64_t age_seconds = 0;
  std::int64_t today = 0;  // paidCallsToday
  std::optional<std::int64_t> last_30_days;  // quality.l30DaysTotalCalls, when the catalog says it
};
activity activity_of(const boost::json::object& item, std::int64_t now_ms);
/// "up 12s today 3 30d 41", "late 2m today 0 30d 0", "- today 0" (no 30 days from the catalog).
std::string activity_cell(const activity& a);

/// One resource as printed; every text is terminal-safe.
struct resource_line {
  std::string service_name;
  std::string method;  // or the MCP tool name
  std::string url;
  std::string price;   // "1000 zat/page"
  activity live;
  std::string description;
  double score = 0;  // rounded to four decimals
  std::string why;   // empty unless explained
};
resource_line line_of(const boost::json::object& item, std::int64_t now_ms, double score, std::string why = {});

/// The text report: one line per resource in ranked order (and a "why:" line under each one
/// explained), then `pick: METHOD URL` and what its origin said (origin_verdict::line), or
/// `pick: none`.
std::string render_text(const std::vector<resource_line>& lines, bool picked, const origin_verdict& origin);
/// The same as one JSON document: "pick" {method, url, origin {verified, check?, reason?}} or null.
std::string render_json(const std::vector<resource_line>& lines, bool picked, const origin_verdict& origin);

}  // namespace z402::agent
