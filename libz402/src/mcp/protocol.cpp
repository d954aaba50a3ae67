#include "z402/mcp/protocol.hpp"

#include "http/page_file.hpp"
#include "z402/wire/json.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>

namespace z402::mcp {
namespace {

namespace json = boost::json;

constexpr std::size_t max_message_depth = 32;

std::string result_response(const json::value& id, std::string_view result_json) {
  return result_head(json::serialize(id)).append(result_json).append(result_tail);
}

rpc_error invalid_params(std::string message, std::string_view field = {}) {
  rpc_error e{rpc_code::invalid_params, std::move(message), {}};
  if (!field.empty()) e.data["field"] = field;
  return e;
}

}  // namespace

bool supported_version(std::string_view v) {
  return std::find(protocol_versions.begin(), protocol_versions.end(), v) != protocol_versions.end();
}

std::string error_response(const json::value& id, const rpc_error& error) {
  json::object err{{"code", static_cast<int>(error.code)}, {"message", error.message}};
  if (!error.data.empty()) err["data"] = error.data;
  return json::serialize(json::object{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(err)}});
}

std::string result_json(const tool_result& r) {
  // Assembled once, at its final size: structuredContent is the page as the HTTP read renders
  // it, spliced in, never parsed back.
  auto text = json::serialize(json::string(r.text));
  std::string out;
  out.reserve(text.size() + r.structured_json.size() + 80);
  out.append(R"({"content":[{"type":"text","text":)").append(text).append("}]");
  if (!r.structured_json.empty()) out.append(R"(,"structuredContent":)").append(r.structured_json);
  out.append(r.is_error ? R"(,"isError":true})" : R"(,"isError":false})");
  return out;
}

std::string result_head(std::string_view id_json) {
  std::string head = R"({"jsonrpc":"2.0","id":)";
  return head.append(id_json).append(R"(,"result":)");
}

std::string server::outcome::text() const {
  if (!body || !result) return body.value_or(std::string{});
  std::string out;
  auto text = result->text();
  out.reserve(body->size() + text.size() + result_tail.size());
  return out.append(*body).append(text).append(result_tail);
}

std::string_view kept_result::text() const {
  if (!file) return json;
  auto bytes = file->bytes();
  return bytes.substr(0, bytes.size() - result_tail.size());
}

server::server(server_info info, std::vector<tool> tools, tool_call call)
    : info_(std::move(info)), tools_(std::move(tools)), call_(std::move(call)) {
  json::array list;
  for (auto& t : tools_)
    list.push_back(json::object{{"name", t.name},
                                {"title", t.title},
                                {"description", t.description},
                                {"inputSchema", t.input_schema},
                                {"outputSchema", t.output_schema}});
  tools_list_ = json::serialize(json::object{{"tools", std::move(list)}});
}

server::outcome server::handle(std::string_view message) const {
  // The message's tree in one arena, let go at once (a tools/call's tree is a dozen nodes; each
  // its own allocation cost more than the cached answer's lookup).
  auto parsed = wire::parse_strict_document(message, max_message_depth);
  if (!parsed) return {error_response(nullptr, {rpc_code::parse_error, "not JSON: " + parsed.error().reason, {}}), true};
  auto& doc = *parsed;
  if (doc->is_array())
    return {error_response(nullptr, {rpc_code::invalid_request, "batches are not accepted: send one message per request", {}}),
            true};
  auto* msg = doc->if_object();
  auto* version = msg ? msg->if_contains("jsonrpc") : nullptr;
  if (!version || !version->is_string() || version->as_string() != "2.0")
    return {error_response(nullptr, {rpc_code::invalid_request, "a JSON-RPC 2.0 message is an object with \"jsonrpc\":\"2.0\"", {}}),
            true};
  auto* id = msg->if_contains("id");
  auto* method = msg->if_contains("method");
  if (!method) {
    // A response from the client (we send no requests) or garbage with an id: nothing to answer.
    if (id && (msg->contains("result") || msg->contains("error"))) return {};
    return {error_response(id ? *id : json::value{}, {rpc_code::invalid_request, "a request needs a method", {}}), true};
  }
  if (!method->is_string())
    return {error_response(id ? *id : json::value{}, {rpc_code::invalid_request, "method must be a string", {}}), true};
  if (id && !id->is_string() && !id->is_int64() && !id->is_uint64())
    return {error_response(nullptr, {rpc_code::invalid_request, "id must be a string or an integer", {}}), true};
  auto* params = msg->if_contains("params");
  if (params && !params->is_object())
    return {error_response(id ? *id : json::value{}, {rpc_code::invalid_request, "params must be an object", {}}), true};
  if (!id) return {};  // a notification (notifications/initialized, cancelled, ...): accepted, no answer
  return dispatch(*id, method->as_string(), params);
}

server::outcome server::dispatch(const json::value& id, std::string_view method, const json::value* params) const {
  static const json::object no_params;
  auto& p = params ? params->as_object() : no_params;
  if (method == "ping") return {result_response(id, "{}")};
  if (method == "initialize") {
    auto* asked = p.if_contains("protocolVersion");
    if (!asked || !asked->is_string()) return {error_response(id, invalid_params("params.protocolVersion is required", "protocolVersion"))};
    std::string_view version = supported_version(asked->as_string()) ? std::string_view{asked->as_string()} : protocol_versions[0];
    json::object result{{"protocolVersion", version},
                        {"capabilities", {{"tools", {{"listChanged", false}}}}},
                        {"serverInfo", {{"name", info_.name}, {"title", info_.title}, {"version", info_.version}}}};
    if (!info_.instructions.empty()) result["instructions"] = info_.instructions;
    return {result_response(id, json::serialize(result))};
  }
  if (method == "tools/list") return {result_response(id, tools_list_)};
  if (method == "tools/call") {
    auto* name = p.if_contains("name");
    if (!name || !name->is_string()) return {error_response(id, invalid_params("params.name must name a tool", "name"))};
    auto known = std::any_of(tools_.begin(), tools_.end(), [&](auto& t) { return t.name == name->as_string(); });
    if (!known) return {error_response(id, invalid_params("unknown tool " + std::string{name->as_string()}, "name"))};
    static const json::object no_arguments;
    auto* args = p.if_contains("arguments");
    if (args && !args->is_object()) return {error_response(id, invalid_params("params.arguments must be an object", "arguments"))};
    auto answer = call_(name->as_string(), args ? args->as_object() : no_arguments);
    if (auto* err = std::get_if<rpc_error>(&answer)) return {error_response(id, *err)};
    auto* made = std::get_if<tool_result>(&answer);
    // The result is spliced after the id, never copied into the answer: the HTTP server writes
    // the two (and the closing brace) as one gathered write.
    return {result_head(json::serialize(id)), false,
            made ? std::make_shared<const kept_result>(kept_result{result_json(*made), std::nullopt, nullptr}) : std::get<shared_result>(std::move(answer))};
  }
  return {error_response(id, {rpc_code::method_not_found, "unknown method " + std::string{method}, {}})};
}

std::variant<std::vector<std::pair<std::string, std::string>>, rpc_error> read_arguments(
    const json::object& arguments, std::initializer_list<std::string_view> strings,
    std::initializer_list<std::string_view> numbers) {
  std::vector<std::pair<std::string, std::string>> out;
  for (auto& kv : arguments) {
    std::string_view key = kv.key();
    auto& v = kv.value();
    bool is_string_arg = std::find(strings.begin(), strings.end(), key) != strings.end();
    bool is_number_arg = std::find(numbers.begin(), numbers.end(), key) != numbers.end();
    if (!is_string_arg && !is_number_arg) return invalid_params("unknown argument " + std::string{key}, key);
    if (is_string_arg) {
      if (!v.is_string()) return invalid_params("argument " + std::string{key} + " must be a string", key);
      out.emplace_back(key, v.as_string().c_str());
    } else if (v.is_int64() || v.is_uint64()) {
      out.emplace_back(key, v.is_int64() ? std::to_string(v.as_int64()) : std::to_string(v.as_uint64()));
    } else if (v.is_string() && !v.as_string().empty() &&
               std::all_of(v.as_string().begin(), v.as_string().end(), [](char c) { return c >= '0' && c <= '9'; })) {
      out.emplace_back(key, v.as_string().c_str());  // atomic units as a decimal string, as x402 writes amounts
    } else {
      return invalid_params("argument " + std::string{key} + " must be a whole number", key);
    }
  }
  return out;
}

}  // namespace z402::mcp
