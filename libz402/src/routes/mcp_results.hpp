#pragma once
// The tools/call results of the catalog's MCP server, kept per snapshot version and arguments
// (etag_cache: made once, shared by every io thread, superseded by the next version), so that a
// tool answers from a cache as the GET routes do: the JSON-RPC envelope around a result is the
// request's id alone. A result over the gzip threshold is deflated when it is made, so a client
// that takes gzip gets a member framed around those blocks, as a GET reader gets a cached page.
#include "routes/etag_cache.hpp"
#include "z402/mcp/protocol.hpp"

#include <cstddef>

namespace z402::routes {

/// 128 results (16 sets of 8), at most 4 MiB of them, text, deflated blocks and file together (a
/// search_resources page of 20 is about 30 KB with its text).
using mcp_result_cache = etag_cache<mcp::kept_result, 16>;
constexpr std::size_t mcp_result_cache_budget = 4u << 20;

}  // namespace z402::routes
