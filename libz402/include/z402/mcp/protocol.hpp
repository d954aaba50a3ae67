#pragma once
// The Model Context Protocol as both of our servers speak it (the catalog's /discovery/mcp
// over Streamable HTTP, and the agent's private `z402-discover mcp` over stdio): JSON-RPC 2.0
// messages, `initialize` with version negotiation, `ping`, `tools/list` and `tools/call`.
// Stateless: no session, so any node answers any request. Revisions 2025-11-25, 2025-06-18
// and 2025-03-26; a client asking for another gets the latest (the spec's negotiation).
#include "z402/core/gzip.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace z402::http {
class page_file;
}  // namespace z402::http

namespace z402::mcp {

inline constexpr std::array<std::string_view, 3> protocol_versions{"2025-11-25", "2025-06-18", "2025-03-26"};

bool supported_version(std::string_view v);

/// JSON-RPC 2.0 error codes (the spec's names).
enum class rpc_code : int {
  parse_error = -32700,
  invalid_request = -32600,
  method_not_found = -32601,
  invalid_params = -32602,
  internal_error = -32603,
};

struct rpc_error {
  rpc_code code = rpc_code::invalid_params;
  std::string message;
  boost::json::object data;  // e.g. {"field": "limit", "error": "invalid_filter"}
};

/// A tool as tools/list shows it.
struct tool {
  std::string name;
  std::string title;
  std::string description;
  boost::json::object input_schema;
  boost::json::object output_schema;
};

/// What a tool answers: structuredContent (as JSON text, spliced into the answer unparsed)
/// and the short text rendering beside it; `is_error` for a tool-level failure (not found).
struct tool_result {
  std::string structured_json;
  std::string text;
  bool is_error = false;
};

/// A tools/call result as the JSON text of its object ({"content":[{"type":"text","text":...}],
/// "structuredContent":...,"isError":...}), made once: a server may keep one and answer it to
/// every request that asks the same (the catalog does, per page and snapshot version), since
/// the request's id lies outside it. A server that keeps it may deflate it once too, for the
/// clients that take gzip: a member framed around it holds each request's id
/// (compression::frame_gzip).
/// A server that sends over sockets may keep the result's text and the envelope's closing brace
/// in a file instead, for sendfile (http::page_file): a page of 100 is 162 KB, copied into the
/// socket on every answer otherwise, and held once, in the file, not again on the heap.
struct kept_result {
  std::string json;  // the result's text; empty when `file` holds it
  std::optional<compression::deflated> deflated;
  std::shared_ptr<const http::page_file> file;  // the result's text then result_tail, or none
  /// The result's JSON text, wherever it is held.
  std::string_view text() const;
};
using shared_result = std::shared_ptr<const kept_result>;
/// The JSON text of `r`'s result object.
std::string result_json(const tool_result& r);
/// What a tools/call answer holds before its result: {"jsonrpc":"2.0","id":ID,"result": with
/// `id_json` the id's JSON text.
std::string result_head(std::string_view id_json);
/// What closes a tools/call answer after its result: the envelope's brace.
inline constexpr std::string_view result_tail = "}";

using tool_answer = std::variant<tool_result, shared_result, rpc_error>;
using tool_call = std::function<tool_answer(std::string_view name, const boost::json::object& arguments)>;

struct server_info {
  std::string name;
  std::string title;
  std::string version;
  std::string instructions;
};

/// The protocol, with the tools plugged in.
class server {
 public:
  server(server_info info, std::vector<tool> tools, tool_call call);

  struct outcome {
    outcome() = default;  // nothing to answer
    outcome(std::string body, bool malformed = false, shared_result result = {})
        : body(std::move(body)), malformed(malformed), result(std::move(result)) {}

    std::optional<std::string> body;  // the JSON-RPC response (its head when `result` is set); none for a notification or a response
    bool malformed = false;           // a parse error or an invalid request (HTTP answers 400)
    shared_result result;             // a tools/call result: the response is `body`, then it, then result_tail
    /// The whole response in one string.
    std::string text() const;
  };
  /// One message in (the text of a JSON-RPC request, notification or response), its answer out.
  outcome handle(std::string_view message) const;

 private:
  outcome dispatch(const boost::json::value& id, std::string_view method, const boost::json::value* params) const;

  server_info info_;
  std::vector<tool> tools_;
  std::string tools_list_;  // the tools/list result, serialised once
  tool_call call_;
};

/// A JSON-RPC error response.
std::string error_response(const boost::json::value& id, const rpc_error& error);

/// Reads tool arguments against the names a tool takes: every argument must be one of
/// `strings` (a string) or `numbers` (a whole number, or a string of digits); returns them as
/// text, or the error naming the argument.
std::variant<std::vector<std::pair<std::string, std::string>>, rpc_error> read_arguments(
    const boost::json::object& arguments, std::initializer_list<std::string_view> strings,
    std::initializer_list<std::string_view> numbers);

}  // namespace z402::mcp
