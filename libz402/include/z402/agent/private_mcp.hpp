#pragma once
// `z402-discover mcp`: the agent's private MCP server. It reads the public catalog list (never
// /discovery/search: what the agent looks for never leaves its machine) under the same bounds
// as z402-discover, keeps the copy for a minute, and ranks it locally. Every text it answers
// with is terminal-safe: catalog text is a seller's, not ours.
#include "z402/agent/catalog_reader.hpp"
#include "z402/agent/origin_binding.hpp"
#include "z402/mcp/protocol.hpp"

#include <chrono>
#include <functional>
#include <mutex>

namespace z402::agent {

inline constexpr std::chrono::seconds catalog_reread_interval{60};

/// The local copy of the catalog, read again at most once per interval.
class catalog_copy {
 public:
  using reader = std::function<catalog_read()>;
  using clock = std::function<std::int64_t()>;  // Unix ms
  catalog_copy(reader read, clock now) : read_(std::move(read)), now_(std::move(now)) {}

  /// The items, read now when the copy is missing or older than a minute. A failed read keeps
  /// a copy already held (and says why only when there is none).
  const catalog_read& get();

 private:
  reader read_;
  clock now_;
  std::optional<catalog_read> copy_;
  std::int64_t read_at_ = 0;
};

/// How a pick is bound to its origin before it is answered (origin_binding.hpp).
struct pick_check {
  std::function<origin_verdict(const boost::json::object& item)> verify;
  bool required = false;  // an unverified pick answers isError
};

/// The server: tools `discover` (intent, maxAmount, limit; its pick checked by `check`) and
/// `get_resource` (url, method or toolName), over `copy`.
mcp::server make_private_mcp(catalog_copy& copy, std::function<std::int64_t()> now_ms, pick_check check);

}  // namespace z402::agent
