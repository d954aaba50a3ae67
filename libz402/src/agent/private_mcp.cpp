#include "z402/agent/private_mcp.hpp"

#include "z402/agent/discover.hpp"
#include "rules/item_fields.hpp"
#include "z402/rules/text.hpp"
#include "z402/version.hpp"
#include "wire/url.hpp"

#include <boost/json.hpp>

#include <charconv>

namespace z402::agent {
namespace {

namespace json = boost::json;

constexpr std::size_t default_limit = 10;
constexpr std::uint64_t max_results = 1000;  // what one call may ask for (the reader keeps at most 1,000 items)

mcp::rpc_error bad_argument(std::string message, std::string_view field) {
  mcp::rpc_error e{mcp::rpc_code::invalid_params, std::move(message), {}};
  e.data["field"] = field;
  return e;
}

/// Whether an accepts entry of `item` costs at most `max` atomic units.
bool priced_at_most(const json::object& item, std::uint64_t max) {
  auto* accepts = item.if_contains("accepts");
  if (!accepts || !accepts->is_array()) return false;
  for (auto& e : accepts->as_array()) {
    auto* amount = e.is_object() ? e.as_object().if_contains("amount") : nullptr;
    if (amount && amount->is_string())
      if (auto v = rules::atomic_units(amount->as_string()); v && *v <= max) return true;
  }
  return false;
}

/// A string without its trailing newline (the JSON renderings end with one; a stdio message may not hold one).
std::string one_line(std::string s) {
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

mcp::tool_result unreadable(const catalog_read& read) {
  return {{}, rules::terminal_safe("could not read the catalog: " + read.error.value_or("unknown error")), true};
}

mcp::tool_answer discover(catalog_copy& copy, const pick_check& check, std::int64_t now, const json::object& args) {
  auto read_args = mcp::read_arguments(args, {"intent"}, {"maxAmount", "limit"});
  if (auto* err = std::get_if<mcp::rpc_error>(&read_args)) return *err;
  std::string intent;
  std::optional<std::uint64_t> max_amount;
  std::size_t limit = default_limit;
  for (auto& [k, v] : std::get<0>(read_args)) {
    if (k == "intent") intent = v;
    else if (k == "maxAmount") {
      max_amount = rules::atomic_units(v);
      if (!max_amount) return bad_argument("argument maxAmount must be a whole number of atomic units", "maxAmount");
    } else {
      auto n = rules::atomic_units(v);
      if (!n || *n < 1 || *n > max_results)
        return bad_argument("argument limit must be from 1 to " + std::to_string(max_results), "limit");
      limit = static_cast<std::size_t>(*n);
    }
  }
  if (intent.find_first_not_of(" \t\r\n") == std::string::npos) return bad_argument("argument intent is required", "intent");
  auto& read = copy.get();
  if (!read.error.has_value() || !read.items.empty()) {
    std::vector<json::object> items;
    for (auto& it : read.items)
      if (!max_amount || priced_at_most(it, *max_amount)) items.push_back(it);
    auto ranked = rank(items, intent);
    std::vector<resource_line> lines;
    for (auto pos : ranked.order) {
      if (lines.size() == limit) break;
      lines.push_back(line_of(items[pos], now, ranked.scores[pos]));
    }
    bool picked = ranked.pick.has_value() && !lines.empty();
    auto origin = picked ? check.verify(items[*ranked.pick]) : origin_verdict{};
    return mcp::tool_result{one_line(render_json(lines, picked, origin)), one_line(render_text(lines, picked, origin)),
                            picked && check.required && !origin.verified};
  }
  return unreadable(read);
}

mcp::tool_answer get_resource(catalog_copy& copy, std::int64_t now, const json::object& args) {
  auto read_args = mcp::read_arguments(args, {"url", "method", "toolName"}, {});
  if (auto* err = std::get_if<mcp::rpc_error>(&read_args)) return *err;
  std::string url, method = "GET", tool;
  for (auto& [k, v] : std::get<0>(read_args)) (k == "url" ? url : k == "method" ? method : tool) = v;
  if (url.empty()) return bad_argument("argument url is required", "url");
  auto wanted = wire::canonical_resource_of(url, std::nullopt);
  if (!wanted) return bad_argument("argument url " + wanted.error().reason, "url");
  auto& read = copy.get();
  if (read.error.has_value() && read.items.empty()) return unreadable(read);
  std::vector<resource_line> lines;
  for (auto& it : read.items) {
    auto* resource = it.if_contains("resource");
    if (!resource || !resource->is_string()) continue;
    auto item_resource = wire::canonical_resource_of(resource->as_string(), std::nullopt);
    if (!item_resource || *item_resource != *wanted) continue;
    auto line = line_of(it, now, 0);
    if (line.method != rules::terminal_safe(tool.empty() ? method : tool)) continue;
    lines.push_back(std::move(line));
  }
  if (lines.empty())
    return mcp::tool_result{{}, rules::terminal_safe("not_found: no listing of " + (tool.empty() ? method : tool) + " " + *wanted), true};
  return mcp::tool_result{one_line(render_json(lines, false, {})), one_line(render_text(lines, false, {})), false};
}

json::object object_schema(json::object properties, std::initializer_list<std::string_view> required) {
  json::array req;
  for (auto r : required) req.emplace_back(r);
  return {{"type", "object"}, {"properties", std::move(properties)}, {"required", std::move(req)}, {"additionalProperties", false}};
}

json::object lines_schema() {
  json::object line{{"type", "object"},
                    {"properties",
                     {{"serviceName", {{"type", "string"}}}, {"method", {{"type", "string"}}}, {"url", {{"type", "string"}}},
                      {"price", {{"type", "string"}}}, {"description", {{"type", "string"}}}, {"score", {{"type", "number"}}},
                      {"activity", {{"type", "object"}}}}}};
  return {{"type", "object"},
          {"properties", {{"resources", {{"type", "array"}, {"items", std::move(line)}}}, {"pick", {{"type", {"object", "null"}}}}}},
          {"required", {"resources"}}};
}

}  // namespace

const catalog_read& catalog_copy::get() {
  auto now = now_();
  if (copy_ && now - read_at_ < std::chrono::duration_cast<std::chrono::milliseconds>(catalog_reread_interval).count())
    return *copy_;
  auto fresh = read_();
  read_at_ = now;
  if (!fresh.error || !copy_) copy_ = std::move(fresh);  // a failed re-read keeps the copy held
  return *copy_;
}

mcp::server make_private_mcp(catalog_copy& copy, std::function<std::int64_t()> now_ms, pick_check check) {
  std::vector<mcp::tool> tools{
      {"discover", "Discover a paid resource",
       "Finds the paid x402 resources that fit an intent. The catalog is read and ranked on this machine: the intent "
       "is never sent anywhere. Answers the ranked resources (price, liveness, paid calls today) and the pick, with "
       "whether the pick's own origin names its payTo (origin-verified).",
       object_schema({{"intent", {{"type", "string"}, {"description", "what you want to do, in words"}}},
                      {"maxAmount", {{"type", {"string", "integer"}}, {"description", "price ceiling in atomic units"}}},
                      {"limit", {{"type", "integer"}, {"minimum", 1}, {"maximum", max_results}, {"description", "at most this many (default 10)"}}}},
                     {"intent"}),
       lines_schema()},
      {"get_resource", "Get one paid resource",
       "The listings of one resource from the local copy of the catalog: an HTTP route (url and method, GET by "
       "default) or an MCP tool (url and toolName).",
       object_schema({{"url", {{"type", "string"}}}, {"method", {{"type", "string"}}}, {"toolName", {{"type", "string"}}}}, {"url"}),
       lines_schema()},
  };
  return mcp::server{{"z402-discover", "z402 private discovery", std::string{z402::version()},
                      "Discovery of paid x402 resources that never sends what you look for: the catalog is read whole "
                      "and ranked on this machine."},
                     std::move(tools),
                     [&copy, now_ms, check = std::move(check)](std::string_view name, const json::object& args) -> mcp::tool_answer {
                       return name == "discover" ? discover(copy, check, now_ms(), args) : get_resource(copy, now_ms(), args);
                     }};
}

}  // namespace z402::agent
