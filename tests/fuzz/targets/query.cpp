// The query strings of GET /discovery/resources, /discovery/search and /discovery/resource, the
// search cursors a client hands back, and the pages they render.
#include "target.hpp"
#include "sample_catalog.hpp"

#include "routes/list_query.hpp"
#include "routes/resource_query.hpp"
#include "routes/search_query.hpp"
#include "z402/wire/json.hpp"

Z402_FUZZ_TARGET(query) {
  using namespace z402;
  static const auto snap = fuzz::sample_snapshot();
  static const routes::cursor_signer cursors{std::string(32, 'k')};
  constexpr std::int64_t now_ms = 1'700'000'000'000;
  auto text = fuzz::text_of(data, size);
  auto is_json = [](std::string_view body) {
    return wire::parse_strict(body, 64).has_value();
  };

  auto is_query_error = [](const error& e) {
    return !e.reason.empty() && (e.code == errc::invalid_filter || e.code == errc::invalid_cursor ||
                                 e.code == errc::query_required || e.code == errc::not_found);
  };
  if (auto list = routes::parse_list_request(text)) {
    fuzz::require(list->limit >= 1 && list->limit <= routes::max_list_limit, "a list limit is 1-1000");
    fuzz::require(is_json(routes::render_list(snap, *list).flatten()), "a list page is JSON");
  } else {
    fuzz::require(list.error().code == errc::invalid_filter && !list.error().reason.empty(), "a refused list query says why");
  }

  if (auto search = routes::parse_search_request(text, cursors, now_ms))
    fuzz::require(is_json(routes::render_search(*snap, *search, cursors, now_ms)), "a search page is JSON");
  else
    fuzz::require(is_query_error(search.error()), "a refused search has a documented code and a reason");

  if (auto found = routes::render_resource(*snap, text))
    fuzz::require(is_json(*found), "a resource answer is JSON");
  else
    fuzz::require(is_query_error(found.error()), "a resource refusal has a documented code and a reason");

  // The whole input as a cursor: refused with a reason unless the server signed it; a cursor the
  // server signed redeems to its offset for its own query only.
  if (auto foreign = cursors.redeem(text, "q=weather", now_ms); !foreign)
    fuzz::require(foreign.error().code == errc::invalid_cursor, "a refused cursor is invalid_cursor");
  auto offset = size;
  auto issued = cursors.issue(offset, text, now_ms);
  auto redeemed = cursors.redeem(issued, text, now_ms + 1000);
  fuzz::require(redeemed && *redeemed == offset, "an issued cursor redeems to its offset");
  fuzz::require(!cursors.redeem(issued, std::string{text} + "x", now_ms), "a cursor is bound to its query");
  fuzz::require(!cursors.redeem(issued, text, now_ms + routes::cursor_lifetime_ms + 1), "a cursor expires");
  return 0;
}
