// The query strings of GET /discovery/resources, /discovery/search and /discovery/resource, the
// search cursors a client hands back, and the pages they render.
#include "target.hpp"
#include "sample_catalog.hpp"

#include "z402/http/list_query.hpp"
#include "z402/http/search_query.hpp"
#include "z402/wire/json.hpp"

Z402_FUZZ_TARGET(query) {
  using namespace z402;
  static const auto snap = fuzz::sample_snapshot();
  static const http::cursor_signer cursors{std::string(32, 'k')};
  constexpr std::int64_t now_ms = 1'700'000'000'000;
  auto text = fuzz::text_of(data, size);
  auto is_json = [](std::string_view body) {
    std::string error;
    return wire::parse_strict(body, 64, error).has_value();
  };

  std::string error;
  if (auto list = http::parse_list_request(text, error)) {
    fuzz::require(list->limit >= 1 && list->limit <= http::max_list_limit, "a list limit is 1-1000");
    fuzz::require(is_json(http::render_list(snap, *list).flatten()), "a list page is JSON");
  } else {
    fuzz::require(!error.empty(), "a refused list query names the parameter");
  }

  http::query_error refused;
  if (auto search = http::parse_search_request(text, cursors, now_ms, refused)) {
    auto page = http::render_search(*snap, *search, cursors, now_ms);
    fuzz::require(is_json(page), "a search page is JSON");
  } else {
    fuzz::require(!refused.code.empty() && !refused.message.empty(), "a refused search names its code and parameter");
  }

  http::query_error not_found;
  if (auto found = http::render_resource(*snap, text, not_found))
    fuzz::require(is_json(*found), "a resource answer is JSON");
  else
    fuzz::require(not_found.code == "invalid_filter" || not_found.code == "not_found" || not_found.code == "query_required",
                  "a resource refusal has a documented code");

  // The whole input as a cursor: refused with a reason unless the server signed it; a cursor the
  // server signed redeems to its offset for its own query only.
  std::string why;
  if (!cursors.redeem(text, "q=weather", now_ms, why)) fuzz::require(!why.empty(), "a refused cursor says why");
  auto offset = size;
  auto issued = cursors.issue(offset, text, now_ms);
  auto redeemed = cursors.redeem(issued, text, now_ms + 1000, why);
  fuzz::require(redeemed && *redeemed == offset, "an issued cursor redeems to its offset");
  fuzz::require(!cursors.redeem(issued, std::string{text} + "x", now_ms, why), "a cursor is bound to its query");
  fuzz::require(!cursors.redeem(issued, text, now_ms + http::cursor_lifetime_ms + 1, why), "a cursor expires");
  return 0;
}
