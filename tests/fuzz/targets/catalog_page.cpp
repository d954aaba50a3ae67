// A catalog page as the agent reads it from a server it does not trust: parsed for display,
// ranked against an intent, and printed (text and JSON) through terminal_safe.
#include "target.hpp"

#include "z402/agent/catalog_reader.hpp"
#include "z402/agent/discover.hpp"
#include "z402/rules/text.hpp"
#include "z402/wire/json.hpp"

Z402_FUZZ_TARGET(catalog_page) {
  using namespace z402;
  auto page = agent::parse_catalog_page(fuzz::text_of(data, size));
  if (page.error) return 0;
  std::vector<boost::json::object> items;
  for (auto& v : page.entries)
    if (v.is_object()) items.push_back(v.get_object());
  auto ranked = agent::rank(items, "weather forecast for a city");
  fuzz::require(ranked.order.size() == items.size(), "every item is ranked");
  std::vector<agent::resource_line> lines;
  for (auto i : ranked.order) lines.push_back(agent::line_of(items[i], 1'700'000'000'000, ranked.scores[i]));
  auto text = agent::render_text(lines, ranked.pick.has_value(), {});
  // Lines end in newlines; nothing else a terminal acts on may come from the catalog.
  std::string without_newlines = text;
  std::erase(without_newlines, '\n');
  fuzz::require(rules::check_shown_text(without_newlines, "text").has_value(), "the agent's report is safe to print");
  fuzz::require(wire::parse_strict(agent::render_json(lines, ranked.pick.has_value(), {}), 64).has_value(),
                "the agent's JSON report is strict JSON");
  return 0;
}
