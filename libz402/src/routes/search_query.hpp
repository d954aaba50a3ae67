#pragma once
// GET /discovery/search (docs/wire.md §2), on the snapshot the list serves. Search pages are
// addressed by signed cursors: opaque, bound to the query and filters they were issued for,
// valid 15 minutes.
#include "z402/catalog/snapshot.hpp"
#include "routes/list_query.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace z402::routes {

constexpr std::size_t max_query_chars = 512;
constexpr std::int64_t cursor_lifetime_ms = 15 * 60 * 1000;
constexpr std::size_t results_per_origin = 3;

class cursor_signer {
 public:
  /// `key`: the HMAC-SHA256 key (32 random bytes, made at start).
  explicit cursor_signer(std::string key) : key_(std::move(key)) {}

  std::string issue(std::size_t offset, std::string_view fingerprint, std::int64_t now_ms) const;
  /// The offset a cursor stands for; invalid_cursor when it was tampered with, has expired, or
  /// was issued for another query or other filters.
  expected<std::size_t> redeem(std::string_view cursor, std::string_view fingerprint, std::int64_t now_ms) const;

 private:
  std::string key_;
};

struct search_request {
  std::string query;
  list_filter filter;
  std::size_t limit = default_list_limit;
  std::size_t offset = 0;
  std::string fingerprint;  // what a cursor is bound to: the query and the filters
  bool explain = false;     // explain=1: why each result matched (docs/search.md, "Explain")
};

/// The search parameters; query_required, invalid_filter or invalid_cursor naming the parameter.
expected<search_request> parse_search_request(std::string_view query_string, const cursor_signer& cursors,
                                              std::int64_t now_ms);
/// The same from parameters already decoded (the MCP tools pass their arguments here).
expected<search_request> read_search_request(const query_params& params, const cursor_signer& cursors, std::int64_t now_ms);

/// {"x402Version":2,"resources":[...],"partialResults":false,"pagination":{"limit":L,"cursor":C}},
/// and with explain, "explain": one entry per resource, in their order.
std::string render_search(const catalog::snapshot& snap, const search_request& req, const cursor_signer& cursors,
                          std::int64_t now_ms, shown_items* shown = nullptr);

}  // namespace z402::routes
