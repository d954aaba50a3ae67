#include "z402/agent/discover.hpp"

#include "z402/rules/price_label.hpp"
#include "z402/rules/text.hpp"
#include "search/explain.hpp"
#include "z402/search/ranking.hpp"
#include "z402/wire/iso_time.hpp"
#include "z402/wire/json.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>

namespace z402::agent {
namespace {

namespace json = boost::json;

constexpr std::int64_t up_limit_s = 75, late_limit_s = 300, future_slack_s = 90;
constexpr std::size_t max_description_chars = 200;


std::string text_at(const json::object& o, std::initializer_list<std::string_view> path) {
  auto* v = wire::find_path(o, path);
  return v && v->is_string() ? rules::terminal_safe(v->get_string()) : std::string{};
}

/// Whole characters, at most `max`, with an ellipsis when cut.
std::string shorten(std::string s, std::size_t max) {
  std::size_t chars = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;
    if (++chars > max) return s.substr(0, i) + "\xE2\x80\xA6";
  }
  return s;
}

/// An item's tool name (MCP) or method (HTTP) as declared, terminal-safe; "" when it has none.
std::string selector_of(const json::object& item) {
  const bool mcp = text_at(item, {"type"}) == "mcp";
  return text_at(item, {"extensions", "bazaar", "info", "input", mcp ? "toolName" : "method"});
}

std::string price_of(const json::object& item) {
  auto* first = wire::find_path(item, {"accepts"});
  if (!first || !first->is_array() || first->get_array().empty() || !first->get_array()[0].is_object()) return "-";
  auto& offer = first->get_array()[0].get_object();
  auto amount = text_at(offer, {"amount"});
  auto asset = text_at(offer, {"asset"});
  auto unit = text_at(item, {"extensions", "z402", "unit"});
  return rules::price_label(shorten(amount, 40), shorten(asset, 12), shorten(unit, 32));
}

/// The item's paid calls of the last 30 days, as its quality block gives them; none when it does not.
std::optional<std::int64_t> last_30_days_of(const json::object& item) {
  auto* days = wire::find_path(item, {"quality", "l30DaysTotalCalls"});
  if (!days || !days->is_int64()) return std::nullopt;
  return days->get_int64();
}

std::string age_text(std::int64_t s) {
  if (s < 60) return std::to_string(s) + "s";
  if (s < 3600) return std::to_string(s / 60) + "m";
  if (s < 86400) return std::to_string(s / 3600) + "h";
  return std::to_string(s / 86400) + "d";
}

}  // namespace

ranking rank(const std::vector<json::object>& items, std::string_view intent, bool explain) {
  // The server's ranking (z402/search/ranking.hpp) over the items read: documents made as the
  // catalog makes them, the intent expanded as the server expands a query.
  std::vector<search::document> docs;
  docs.reserve(items.size());
  for (auto& item : items) {
    docs.push_back(search::make_document(item, selector_of(item)));
  }
  std::vector<const search::document*> pointers;
  std::vector<std::uint64_t> keys;
  for (std::size_t i = 0; i < docs.size(); ++i) pointers.push_back(&docs[i]), keys.push_back(i);
  search::index idx{std::move(pointers), std::move(keys)};
  const auto query = search::expand(intent, &idx);
  // The server's usage prior, from the 30 days' calls each item's quality block shows.
  std::vector<std::uint64_t> calls;
  calls.reserve(items.size());
  for (auto& item : items) calls.push_back(static_cast<std::uint64_t>(std::max<std::int64_t>(last_30_days_of(item).value_or(0), 0)));
  const auto prior = search::usage_prior::of(calls);
  ranking r;
  r.scores.assign(items.size(), 0.0);
  if (explain) r.why.assign(items.size(), "no match");
  std::vector<bool> ranked(items.size(), false);
  for (auto& h : idx.rank(query, &prior)) {
    r.order.push_back(h.position);
    r.scores[h.position] = h.score;
    ranked[h.position] = true;
    if (explain) r.why[h.position] = search::explain_line(query, idx.explain(query, h.position), prior.factor(h.position));
  }
  if (!r.order.empty()) r.pick = r.order.front();
  for (std::size_t i = 0; i < items.size(); ++i)
    if (!ranked[i]) r.order.push_back(i);
  return r;
}

activity activity_of(const json::object& item, std::int64_t now_ms) {
  activity a;
  if (auto* today = item.if_contains("paidCallsToday"); today && today->is_int64()) a.today = today->get_int64();
  a.last_30_days = last_30_days_of(item);
  auto* seen = item.if_contains("lastSeen");
  if (!seen || !seen->is_string()) return a;
  auto ms = wire::parse_iso_ms(seen->get_string());
  if (!ms) return a;
  auto age = (now_ms - *ms) / 1000;
  if (age < -future_slack_s) return a;
  a.age_seconds = std::max<std::int64_t>(age, 0);
  a.status = a.age_seconds <= up_limit_s ? "up" : a.age_seconds <= late_limit_s ? "late" : "down";
  return a;
}

std::string activity_cell(const activity& a) {
  auto state = a.status.empty() ? std::string{"-"} : a.status + " " + age_text(a.age_seconds);
  auto cell = state + " today " + std::to_string(a.today);
  if (a.last_30_days) cell += " 30d " + std::to_string(*a.last_30_days);
  return cell;
}

resource_line line_of(const json::object& item, std::int64_t now_ms, double score, std::string why) {
  resource_line l;
  l.service_name = shorten(text_at(item, {"serviceName"}), 32);
  if (l.service_name.empty()) l.service_name = "-";
  auto type = text_at(item, {"type"});
  l.method = selector_of(item);
  if (l.method.empty()) l.method = type == "mcp" ? "mcp" : "GET";  // an HTTP item's method is GET when absent
  l.method = shorten(l.method, 32);
  l.url = shorten(text_at(item, {"resource"}), 300);
  l.price = price_of(item);
  l.live = activity_of(item, now_ms);
  l.description = shorten(text_at(item, {"description"}), max_description_chars);
  l.score = std::round(score * 1e4) / 1e4;
  l.why = std::move(why);
  return l;
}

std::string render_text(const std::vector<resource_line>& lines, bool picked, const origin_verdict& origin) {
  std::string out;
  for (auto& l : lines) {
    out += l.service_name + "  " + l.method + " " + l.url + "  " + l.price + "  " + activity_cell(l.live) + "  " +
           l.description + "\n";
    if (!l.why.empty()) out += "    why: " + l.why + "\n";
  }
  out += picked && !lines.empty() ? "pick: " + lines.front().method + " " + lines.front().url + "  " + origin.line() + "\n"
                                  : "pick: none\n";
  return out;
}

std::string render_json(const std::vector<resource_line>& lines, bool picked, const origin_verdict& origin) {
  json::array resources;
  for (auto& l : lines) {
    // value(x), not value{x}: braces would make a one-element array.
    json::object live{{"status", l.live.status.empty() ? json::value() : json::value(l.live.status)},
                      {"ageSeconds", l.live.status.empty() ? json::value() : json::value(l.live.age_seconds)},
                      {"paidCallsToday", l.live.today},
                      {"l30DaysTotalCalls", l.live.last_30_days ? json::value(*l.live.last_30_days) : json::value()}};
    resources.emplace_back(json::object{{"serviceName", l.service_name},
                                        {"method", l.method},
                                        {"url", l.url},
                                        {"price", l.price},
                                        {"activity", std::move(live)},
                                        {"description", l.description},
                                        {"score", l.score}});
    if (!l.why.empty()) resources.back().as_object()["why"] = l.why;
  }
  json::value pick;
  if (picked && !lines.empty()) {
    json::object bound{{"verified", origin.verified}};
    if (!origin.verified) {
      bound["check"] = origin.check;
      bound["reason"] = origin.reason;
    }
    pick = json::object{{"method", lines.front().method}, {"url", lines.front().url}, {"origin", std::move(bound)}};
  }
  return json::serialize(json::object{{"resources", std::move(resources)}, {"pick", std::move(pick)}}) + "\n";
}

}  // namespace z402::agent
