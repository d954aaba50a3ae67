#pragma once
// GET /discovery/search (bazaar-wire.md §2) and GET /discovery/resource (catalog.md §4), on
// the snapshot the list serves. Search pages are addressed by signed cursors: opaque, bound
// to the query and filters they were issued for, valid 15 minutes.
#include "z402/catalog/snapshot.hpp"
#include "z402/http/list_query.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace z402::http {

constexpr std::size_t max_query_chars = 512;
constexpr std::int64_t cursor_lifetime_ms = 15 * 60 * 1000;
constexpr std::size_t results_per_origin = 3;

class cursor_signer {
 public:
  /// `key`: the HMAC-SHA256 key (32 random bytes, made at start).
  explicit cursor_signer(std::string key) : key_(std::move(key)) {}

  std::string issue(std::size_t offset, std::string_view fingerprint, std::int64_t now_ms) const;
  /// The offset a cursor stands for; nullopt with `why` when it was tampered with, has
  /// expired, or was issued for another query or other filters.
  std::optional<std::size_t> redeem(std::string_view cursor, std::string_view fingerprint, std::int64_t now_ms,
                                    std::string& why) const;

 private:
  std::string key_;
};

/// A refusal: the stable error code (query_required, invalid_filter, invalid_cursor,
/// not_found) and a message naming the parameter.
struct query_error {
  std::string code;
  std::string message;
};

struct search_request {
  std::string query;
  list_filter filter;
  std::size_t limit = default_list_limit;
  std::size_t offset = 0;
  std::string fingerprint;  // what a cursor is bound to: the query and the filters
};

std::optional<search_request> parse_search_request(std::string_view query_string, const cursor_signer& cursors,
                                                   std::int64_t now_ms, query_error& error);
/// The same from parameters already decoded (the MCP tools pass their arguments here).
std::optional<search_request> read_search_request(const query_params& params, const cursor_signer& cursors,
                                                  std::int64_t now_ms, query_error& error);

/// {"x402Version":2,"resources":[...],"partialResults":false,"pagination":{"limit":L,"cursor":C}}
std::string render_search(const catalog::snapshot& snap, const search_request& req, const cursor_signer& cursors,
                          std::int64_t now_ms, shown_items* shown = nullptr);

/// Every provider's item with the identity the query names; nullopt with `error` (400
/// invalid_filter or 404 not_found) otherwise.
std::optional<std::string> render_resource(const catalog::snapshot& snap, std::string_view query_string,
                                           query_error& error);
/// The same from parameters already decoded.
std::optional<std::string> render_resource(const catalog::snapshot& snap, const query_params& params,
                                           query_error& error, shown_items* shown = nullptr);

}  // namespace z402::http
