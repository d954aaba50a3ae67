#pragma once
// POST /discovery/mcp: the catalog as an MCP server over Streamable HTTP (JSON answers, no
// SSE, no session: any node answers any request). Its tools read the same snapshot as the
// HTTP reads, with the same filters, ranking and signed cursors; none ever fetches or calls a
// provider's URL.
#include "routes/handlers.hpp"
#include "z402/mcp/protocol.hpp"

namespace z402::routes {

inline constexpr std::size_t mcp_body_limit = 64u << 10;

/// The server's tools (search_resources, list_resources, get_resource) over `engine`'s catalog,
/// with the read routes' cursors.
mcp::server make_catalog_mcp(const catalog::engine& engine, read_state& reads);

/// Answers one POST: Origin and MCP-Protocol-Version checked first (403, 400), then the
/// JSON-RPC message: 200 with a JSON answer, 202 for a notification, 400 for a malformed one. A
/// tools/call that repeats one answered before at `engine`'s snapshot, but for its id, is
/// answered from memory (mcp_repeats.hpp).
http::response handle_mcp(const node_identity& node, const mcp::server& mcp, const catalog::engine& engine, read_state& reads,
                          const http::request& req);

}  // namespace z402::routes
