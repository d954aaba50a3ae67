#pragma once
// The tools/call results of the catalog's MCP server, kept per snapshot version and arguments
// (etag_cache: made once, shared by every io thread, superseded by the next version), so that a
// tool answers from a cache as the GET routes do: the JSON-RPC envelope around a result is the
// request's id alone.
#include "routes/etag_cache.hpp"

#include <cstddef>
#include <string>

namespace z402::routes {

/// 128 results (16 sets of 8), at most 4 MiB of them (a search_resources page of 20 is about
/// 30 KB with its text).
using mcp_result_cache = etag_cache<std::string, 16>;
constexpr std::size_t mcp_result_cache_budget = 4u << 20;

}  // namespace z402::routes
