#include "routes/catalog_mcp.hpp"

#include "routes/list_query.hpp"
#include "routes/mcp_repeats.hpp"
#include "routes/read_response.hpp"
#include "routes/resource_query.hpp"
#include "routes/search_query.hpp"
#include "z402/rules/price_label.hpp"
#include "z402/version.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/json.hpp>

#include <optional>
#include <utility>

namespace z402::routes {
namespace {

namespace json = boost::json;

constexpr std::size_t default_tool_limit = 20;  // a page an agent's context can hold

json::object string_schema(std::string_view description) { return {{"type", "string"}, {"description", description}}; }

/// The list filters, as tool arguments (the names of the HTTP parameters).
json::object filter_properties() {
  return {{"type", {{"type", "string"}, {"enum", {"http", "mcp"}}, {"description", "http routes or MCP tools"}}},
          {"payTo", string_schema("only resources paid to this address")},
          {"scheme", string_schema("only resources with a payment scheme, e.g. exact")},
          {"network", string_schema("only resources on this network (CAIP-2)")},
          {"asset", string_schema("only resources priced in this asset")},
          {"extensions", string_schema("only resources declaring this extension, e.g. bazaar")},
          {"maxAmount", {{"type", {"string", "integer"}},
                         {"description", "price ceiling in atomic units (of asset when given): an accepts entry costs at most this"}}}};
}

json::object limit_schema() {
  return {{"type", "integer"}, {"minimum", 1}, {"maximum", max_list_limit},
          {"description", "results per page (default 20)"}};
}

json::object items_schema() { return {{"type", "array"}, {"items", {{"type", "object"}}}}; }

std::vector<mcp::tool> catalog_tools() {
  auto search_in = filter_properties();
  search_in["query"] = {{"type", "string"}, {"maxLength", max_query_chars}, {"description", "what the agent looks for, in words"}};
  search_in["limit"] = limit_schema();
  search_in["cursor"] = string_schema("the pagination.cursor of the previous page (valid 15 minutes)");
  auto list_in = filter_properties();
  list_in["limit"] = limit_schema();
  list_in["offset"] = {{"type", "integer"}, {"minimum", 0}, {"description", "items to skip"}};
  list_in["sort"] = {{"type", "string"}, {"enum", {"calls30d"}},
                     {"description", "calls30d: the most paid in the last 30 days first (default: listing order)"}};
  list_in["minCalls30d"] = {{"type", "integer"}, {"minimum", 0}, {"description", "only resources paid at least this often in 30 days"}};
  json::object pagination_search{{"type", "object"},
                                  {"properties", {{"limit", {{"type", "integer"}}}, {"cursor", {{"type", {"string", "null"}}}}}}};
  json::object pagination_list{
      {"type", "object"},
      {"properties", {{"limit", {{"type", "integer"}}}, {"offset", {{"type", "integer"}}}, {"total", {{"type", "integer"}}}}}};
  return {
      {"search_resources", "Search paid resources",
       "Searches the catalog of paid x402 resources by words (ranked by relevance), with optional filters and a price "
       "ceiling. Each result carries its price (accepts), description, input and output schemas, lastSeen and "
       "paidCallsToday. Page with the returned cursor.",
       {{"type", "object"}, {"properties", search_in}, {"required", {"query"}}, {"additionalProperties", false}},
       {{"type", "object"},
        {"properties",
         {{"x402Version", {{"type", "integer"}}}, {"resources", items_schema()}, {"partialResults", {{"type", "boolean"}}},
          {"pagination", pagination_search}}},
        {"required", {"resources", "pagination"}}}},
      {"list_resources", "List paid resources",
       "Lists the catalog of paid x402 resources in listing order (or the most paid in the last 30 days first), with "
       "optional filters, a price ceiling and a least number of paid calls in 30 days. Each carries quality "
       "(l30DaysTotalCalls, lastCalledAt).",
       {{"type", "object"}, {"properties", list_in}, {"additionalProperties", false}},
       {{"type", "object"},
        {"properties", {{"x402Version", {{"type", "integer"}}}, {"items", items_schema()}, {"pagination", pagination_list}}},
        {"required", {"items", "pagination"}}}},
      {"get_resource", "Get one paid resource",
       "Every provider's listing of one resource: an HTTP route (url and method, GET by default) or an MCP tool (url "
       "and toolName).",
       {{"type", "object"},
        {"properties",
         {{"url", string_schema("the resource URL")},
          {"method", string_schema("the HTTP method (default GET)")},
          {"toolName", string_schema("the MCP tool's name (for an MCP resource)")}}},
        {"required", {"url"}},
        {"additionalProperties", false}},
       {{"type", "object"},
        {"properties", {{"x402Version", {{"type", "integer"}}}, {"resources", items_schema()}}},
        {"required", {"resources"}}}},
  };
}

/// The short text beside structuredContent: one line per resource (its method or tool, URL and
/// first price, in the words of rules::price_label), so a client that shows only text still shows
/// the answer. Made from the items'
/// records, not by parsing the page back.
std::string summary(const shown_items& items, std::string_view heading, std::string_view cursor = {}) {
  std::string out{heading};
  out.append(": ").append(std::to_string(items.size())).append(items.size() == 1 ? " resource" : " resources");
  for (auto* it : items) {
    auto& r = it->record();
    out.append("\n- ").append(r.identity.selector).append(" ").append(r.identity.resource);
    if (auto& prices = r.content->prices; !prices.empty())
      out.append(" at ").append(rules::price_label(std::to_string(prices.front().second), prices.front().first, r.content->unit));
  }
  if (!cursor.empty()) out.append("\nmore: pass the cursor of pagination.cursor");
  return out;
}

/// A refused argument: invalid params, with the API's error code in data.error.
mcp::rpc_error refused(const error& why) {
  mcp::rpc_error e{mcp::rpc_code::invalid_params, why.reason, {}};
  e.data["error"] = to_string(why.code);
  return e;
}

/// The tool's arguments as the HTTP parameters they mirror, with the MCP default page size.
std::variant<query_params, mcp::rpc_error> params_of(const json::object& args, std::initializer_list<std::string_view> strings,
                                                     std::initializer_list<std::string_view> numbers) {
  auto read = mcp::read_arguments(args, strings, numbers);
  if (auto* err = std::get_if<mcp::rpc_error>(&read)) return *err;
  query_params params;
  for (auto& [k, v] : std::get<0>(read)) params.emplace(k, v);
  if (auto it = params.find("limit"); it != params.end()) {
    auto n = std::strtoull(it->second.c_str(), nullptr, 10);
    if (n < 1 || n > max_list_limit)
      return refused({errc::invalid_filter, "limit", "argument limit must be from 1 to " + std::to_string(max_list_limit)});
  } else if (std::find(numbers.begin(), numbers.end(), "limit") != numbers.end()) {
    params.emplace("limit", std::to_string(default_tool_limit));
  }
  return params;
}

/// What the last tools/call on this thread answered with a result that depends on its arguments
/// and snapshot alone (mcp_repeats.hpp): the version it was made for. Set by call_tool, read by
/// handle_mcp around mcp::server::handle, on the same thread.
thread_local std::optional<cache_version> repeatable_call;

/// Where a tool's result is kept: the snapshot's run and version, the tool, and its arguments as
/// read, each value with its length (no two argument lists share a key). The whole text is the
/// key, compared in full: a hash alone could be made to meet another request's. Written into
/// the thread's one buffer (no allocation per call once it has grown); valid until the next call.
std::string_view result_key(const catalog::snapshot& snap, std::string_view tool, const query_params& params) {
  thread_local std::string key;
  key.assign(std::to_string(snap.epoch)).append("-").append(std::to_string(snap.version)).append("-").append(tool);
  for (auto& [k, v] : params) key.append("&").append(k).append("=").append(std::to_string(v.size())).append(":").append(v);
  return key;
}

/// A kept result's text and the envelope's closing brace in a file, for answers to send with
/// sendfile as a GET page is (read_response.hpp); nothing when the system gives no file.
std::shared_ptr<const http::page_file> result_file(const std::string& json) {
  http::response_text text;
  text.pieces.push_back(boost::asio::buffer(json));
  text.suffix = mcp::result_tail;
  auto file = http::page_file::write(text);
  if (!file) return nullptr;
  return std::make_shared<const http::page_file>(std::move(*file));
}

/// The result of `tool` with `params` at `snap`: from the cache, or made by `make` (a
/// tool_answer) and kept for the next request to ask it. A refusal is answered, not kept; while
/// another reader is making the result, or the cache's budget is spent, it is made for this
/// answer alone.
template <class Make>
mcp::tool_answer answer(read_state& reads, const catalog::snapshot& snap, std::string_view tool, const query_params& params,
                        bool repeatable, Make&& make) {
  std::optional<mcp::tool_answer> refusal;
  auto kept = reads.mcp_results.get(result_key(snap, tool, params), {snap.epoch, snap.version},
                                    [&]() -> std::optional<std::pair<mcp::kept_result, std::size_t>> {
                                      auto made = make();
                                      auto* result = std::get_if<mcp::tool_result>(&made);
                                      if (!result) {
                                        refusal = std::move(made);
                                        return std::nullopt;
                                      }
                                      mcp::kept_result kept{mcp::result_json(*result), std::nullopt, nullptr};
                                      if (kept.json.size() > gzip_threshold) kept.deflated = compression::deflate_blocks(kept.json);
                                      if (kept.json.size() > file_threshold) kept.file = result_file(kept.json);
                                      if (kept.file) std::string{}.swap(kept.json);  // the file holds it
                                      auto bytes = kept.json.size() + (kept.deflated ? kept.deflated->blocks.size() : 0) +
                                                   (kept.file ? kept.file->size() : 0);
                                      return std::pair{std::move(kept), bytes};
                                    });
  if (refusal) return std::move(*refusal);
  if (repeatable) repeatable_call = cache_version{snap.epoch, snap.version};
  if (kept) return kept->value;
  return make();
}

mcp::tool_answer call_tool(const catalog::engine& engine, read_state& reads, std::string_view name, const json::object& args) {
  auto snap = engine.snapshots().load_cached();
  if (name == "search_resources") {
    auto params = params_of(args, {"query", "type", "payTo", "scheme", "network", "asset", "extensions", "cursor"},
                            {"maxAmount", "limit"});
    if (auto* err = std::get_if<mcp::rpc_error>(&params)) return *err;
    auto& p = std::get<query_params>(params);
    auto now = engine.context().clock->now_ms();
    // A cursor is redeemed on every call, as on GET: a kept page is never a way past its expiry.
    auto req = read_search_request(p, reads.cursors, now);
    if (!req) return refused(req.error());
    // A page asked for by cursor is not answered again from memory: its cursor is redeemed each time.
    return answer(reads, *snap, name, p, !p.contains("cursor"), [&]() -> mcp::tool_answer {
      shown_items shown;
      auto body = render_search(*snap, *req, reads.cursors, now, &shown);
      auto more = body.ends_with(R"("cursor":null}})") ? std::string_view{} : std::string_view{"cursor"};
      auto text = summary(shown, "search results", more);
      return mcp::tool_result{std::move(body), std::move(text), false};
    });
  }
  if (name == "list_resources") {
    auto params = params_of(args, {"type", "payTo", "scheme", "network", "asset", "extensions", "sort"},
                            {"maxAmount", "limit", "offset", "minCalls30d"});
    if (auto* err = std::get_if<mcp::rpc_error>(&params)) return *err;
    auto& p = std::get<query_params>(params);
    auto req = read_list_request(p);
    if (!req) return refused(req.error());
    return answer(reads, *snap, name, p, true, [&]() -> mcp::tool_answer {
      shown_items shown;
      auto body = render_list(snap, *req, &shown).flatten();
      auto text = summary(shown, "catalog page");
      return mcp::tool_result{std::move(body), std::move(text), false};
    });
  }
  // get_resource
  auto params = params_of(args, {"url", "method", "toolName"}, {});
  if (auto* err = std::get_if<mcp::rpc_error>(&params)) return *err;
  auto& p = std::get<query_params>(params);
  if (!p.contains("url")) return refused({errc::invalid_filter, "url", "argument url is required"});
  p.emplace("type", p.contains("toolName") ? "mcp" : "http");
  return answer(reads, *snap, name, p, true, [&]() -> mcp::tool_answer {
    shown_items shown;
    auto body = render_resource(*snap, p, &shown);
    if (!body) {
      if (body.error().code != errc::not_found) return refused(body.error());
      return mcp::tool_result{{}, "not_found: " + body.error().reason, true};
    }
    auto text = summary(shown, "listings");
    return mcp::tool_result{std::move(*body), std::move(text), false};
  });
}

http::response rpc_http(unsigned status, std::string body) {
  auto res = http::json_response(status, std::move(body));
  res.set(http::bhttp::field::cache_control, "no-store");
  return res;
}

std::string_view header(const http::request& req, std::string_view name) {
  auto it = req.find(name);
  return it == req.end() ? std::string_view{} : std::string_view{it->value().data(), it->value().size()};
}

}  // namespace

mcp::server make_catalog_mcp(const catalog::engine& engine, read_state& reads) {
  return mcp::server{{"z402-bazaar", "z402 Bazaar", std::string{z402::version()},
                      "The catalog of paid x402 resources. search_resources finds them by words, list_resources pages "
                      "through them, get_resource shows one. Amounts in accepts are in atomic units of their asset (ZEC's is the zatoshi, zat: 10^-8 ZEC); "
                      "the text lines say so. This server never calls a resource: pay and call it yourself."},
                     catalog_tools(), [&engine, &reads](std::string_view name, const json::object& args) { return call_tool(engine, reads, name, args); }};
}

namespace {

/// The answer to a tools/call with a kept `result` after `head` (mcp::result_head): written as it
/// is, not copied into the answer (sent from its file when it has one), and held until it is
/// sent; deflated once, for a client that takes gzip.
http::response tool_response(const http::request& req, std::string head, mcp::shared_result result) {
  bool gzipped = result->deflated && accepts_gzip(req);
  auto res = [&] {
    if (!gzipped) return rpc_http(200, std::move(head));
    auto frame = compression::frame_gzip(head, *result->deflated, mcp::result_tail);
    auto gz = rpc_http(200, std::move(frame.before));
    gz.set(http::bhttp::field::content_encoding, "gzip");
    gz.body().pieces.push_back(boost::asio::buffer(result->deflated->blocks));
    gz.body().suffix = std::move(frame.after);
    return gz;
  }();
  res.set(http::bhttp::field::vary, "Accept-Encoding");
  auto& body = res.body();
  if (!gzipped) {
    if (result->file) {
      body.file = result->file;
    } else {
      body.pieces.push_back(boost::asio::buffer(result->json));
      body.suffix = mcp::result_tail;
    }
  }
  body.keep_alive = std::move(result);
  res.prepare_payload();
  return res;
}

}  // namespace

http::response handle_mcp(const node_identity& node, const mcp::server& mcp, const catalog::engine& engine, read_state& reads,
                          const http::request& req) {
  // DNS rebinding (the spec's security warning): a browser page of another origin must not
  // reach this server. Requests without Origin (agents, curl) are not from a browser.
  if (auto origin = header(req, "Origin"); !origin.empty()) {
    auto host = header(req, "Host");
    auto own = std::string{node.scheme} + "://" + std::string{host};
    if (host.empty() || origin != own)
      return rpc_http(403, mcp::error_response(nullptr, {mcp::rpc_code::invalid_request, "Origin " + std::string{origin} +
                                                                                           " may not use this server", {}}));
  }
  if (auto version = header(req, "MCP-Protocol-Version"); !version.empty() && !mcp::supported_version(version))
    return rpc_http(400, mcp::error_response(nullptr, {mcp::rpc_code::invalid_request,
                                                       "unsupported MCP-Protocol-Version " + std::string{version} +
                                                           "; this server speaks 2025-11-25, 2025-06-18 and 2025-03-26",
                                                       {}}));
  if (auto ct = header(req, "Content-Type"); ct.substr(0, ct.find(';')) != "application/json")
    return rpc_http(415, mcp::error_response(nullptr, {mcp::rpc_code::invalid_request, "send the message as application/json", {}}));
  auto snap = engine.snapshots().load_cached();
  if (auto again = find_repeat(&reads, req.body(), {snap->epoch, snap->version})) {
    reads.mcp_repeats.add();
    return tool_response(req, mcp::result_head(again->id), again->result);
  }
  repeatable_call.reset();
  auto outcome = mcp.handle(req.body());
  if (!outcome.body) {
    http::response res{http::bhttp::status::accepted, 11};
    res.prepare_payload();
    return res;
  }
  auto& result = outcome.result;
  if (!result) return rpc_http(outcome.malformed ? 400 : 200, std::move(*outcome.body));
  if (repeatable_call) remember_repeat(&reads, req.body(), *repeatable_call, result);
  return tool_response(req, std::move(*outcome.body), std::move(result));
}

}  // namespace z402::routes
