#include "routes/search_query.hpp"

#include "z402/core/crypto.hpp"
#include "z402/rules/text.hpp"
#include "search/explain.hpp"
#include "z402/search/query.hpp"
#include "z402/wire/base64.hpp"

#include <algorithm>
#include <boost/json/serialize.hpp>

#include <charconv>

namespace z402::routes {
namespace {

std::string fingerprint_of(std::string_view query, const list_filter& f) {
  std::string basis{query};
  for (auto [name, member] : filter_fields) basis += '\x1f' + f.*member;
  basis += '\x1f' + (f.max_amount ? std::to_string(*f.max_amount) : std::string{});
  return crypto::sha256_hex(basis).substr(0, 32);
}

bool is_blank(std::string_view s) {
  return s.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

}  // namespace

std::string cursor_signer::issue(std::size_t offset, std::string_view fingerprint, std::int64_t now_ms) const {
  auto payload = std::to_string(offset) + ":" + std::to_string(now_ms) + ":" + std::string{fingerprint};
  return wire::base64url_encode(payload) + "." + wire::base64url_encode(crypto::hmac_sha256(key_, payload));
}

expected<std::size_t> cursor_signer::redeem(std::string_view cursor, std::string_view fingerprint,
                                            std::int64_t now_ms) const {
  auto refused = [](std::string reason) { return error{errc::invalid_cursor, "cursor", std::move(reason)}; };
  auto dot = cursor.find('.');
  auto payload = dot == std::string_view::npos ? std::nullopt : wire::base64url_decode(cursor.substr(0, dot));
  auto mac = dot == std::string_view::npos ? std::nullopt : wire::base64url_decode(cursor.substr(dot + 1));
  if (!payload || !mac || !crypto::constant_time_equal(*mac, crypto::hmac_sha256(key_, *payload))) {
    return refused("the cursor is not one this server issued");
  }
  auto first = payload->find(':'), second = payload->find(':', first + 1);
  std::size_t offset = 0;
  std::int64_t issued = 0;
  std::from_chars(payload->data(), payload->data() + first, offset);
  std::from_chars(payload->data() + first + 1, payload->data() + second, issued);
  if (std::string_view{*payload}.substr(second + 1) != fingerprint) {
    return refused("the cursor belongs to another query or other filters");
  }
  if (now_ms - issued > cursor_lifetime_ms || issued - now_ms > 60'000) {
    return refused("the cursor has expired (cursors are valid 15 minutes); search again");
  }
  return offset;
}

expected<search_request> parse_search_request(std::string_view query_string, const cursor_signer& cursors,
                                              std::int64_t now_ms) {
  auto params = parse_query(query_string);
  if (!params) return params.error();
  return read_search_request(*params, cursors, now_ms);
}

expected<search_request> read_search_request(const query_params& params, const cursor_signer& cursors, std::int64_t now_ms) {
  auto q = params.find("query");
  if (q == params.end() || is_blank(q->second))
    return error{errc::query_required, "query", "parameter query is required: the words to search for"};
  if (rules::utf8_length(q->second) > max_query_chars)
    return error{errc::invalid_filter, "query",
                 "parameter query may be at most " + std::to_string(max_query_chars) + " characters"};
  auto filter = read_filter(params);
  if (!filter) return filter.error();
  search_request req{q->second, std::move(*filter), read_limit(params), 0, {}};
  auto explain = read_flag(params, "explain");
  if (!explain) return explain.error();
  req.explain = *explain;
  req.fingerprint = fingerprint_of(req.query, req.filter);
  if (auto c = params.find("cursor"); c != params.end()) {
    auto offset = cursors.redeem(c->second, req.fingerprint, now_ms);
    if (!offset) return offset.error();
    req.offset = *offset;
  }
  return req;
}

std::string render_search(const catalog::snapshot& snap, const search_request& req, const cursor_signer& cursors,
                          std::int64_t now_ms, shown_items* shown) {
  auto& idx = snap.search_index_of();
  std::vector<std::uint32_t> storage;
  const auto query = search::expand(req.query, &idx);
  auto& prior = snap.usage_prior_of();
  auto page = search::page_of(idx, query, filtered_rows(snap, req.filter, storage), results_per_origin, req.offset, req.limit, &prior);
  std::string out = R"({"x402Version":2,"resources":[)";
  append_items(out, snap, page.positions, shown);
  out.append(R"(],"partialResults":false,"pagination":{"limit":)").append(std::to_string(req.limit));
  auto next = req.offset + req.limit;
  if (page.more)
    out.append(R"(,"cursor":")").append(cursors.issue(next, req.fingerprint, now_ms)).append("\"}");
  else
    out.append(R"(,"cursor":null})");
  if (req.explain) {
    out.append(R"(,"explain":)");
    out.append(boost::json::serialize(search::explain_page(
        idx, query, page.positions, [&](std::size_t p) -> std::string_view { return snap.items[p]->record().identity.resource; },
        &prior)));
  }
  out.push_back('}');
  return out;
}

}  // namespace z402::routes
