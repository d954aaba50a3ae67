#include "routes/handlers.hpp"

#include "z402/core/crypto.hpp"
#include "z402/http/access_log.hpp"
#include "routes/catalog_mcp.hpp"
#include "routes/list_query.hpp"
#include "routes/metrics_page.hpp"
#include "routes/read_response.hpp"
#include "routes/refusal.hpp"
#include "routes/resource_query.hpp"
#include "routes/signed_catalog.hpp"
#include "routes/web_page.hpp"
#include "z402/rules/settlement.hpp"
#include "z402/wire/base64.hpp"
#include "z402/wire/iso_time.hpp"

#include <boost/json.hpp>

#include <charconv>

namespace z402::routes {
namespace {

std::optional<std::string_view> bearer_token(const http::request_header& req) {
  auto it = req.find(http::bhttp::field::authorization);
  if (it == req.end()) return std::nullopt;
  std::string_view v{it->value().data(), it->value().size()};
  constexpr std::string_view scheme = "Bearer ";
  if (v.size() <= scheme.size() || !std::equal(scheme.begin(), scheme.end(), v.begin(), [](char a, char b) {
        return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
      }))
    return std::string_view{};
  return v.substr(scheme.size());
}

http::response unauthorized(std::string_view message) {
  auto res = http::error_response(401, "unauthorized", message);
  res.set(http::bhttp::field::www_authenticate, "Bearer");
  return res;
}

/// GET /health. A catalog that cannot save is "degraded" but still 200: reads are fine, and a
/// load balancer must not drop the node; the persistence object says since when and why.
http::response health_response(const bazaar_routes& routes, const catalog::snapshot& snap) {
  auto& stats = *routes.engine.context().stats;
  auto iso_or_null = [](std::int64_t ms) { return ms ? boost::json::value(wire::format_iso_ms(ms)) : boost::json::value(); };
  auto failing = stats.save_failing_since_ms.load(std::memory_order_acquire);
  auto error = failing ? stats.last_save_error.load(std::memory_order_acquire) : nullptr;
  boost::json::object body{
      {"status", failing ? "degraded" : "ok"},
      {"items", snap.items.size()},
      {"providers", routes.keys.current()->providers.size()},
      {"settles",
       {{"counted", stats.settles_counted.load()}, {"repeated", stats.settles_repeated.load()}, {"rejected", stats.settles_rejected()}}},
      {"persistence",
       {{"lastSavedAt", iso_or_null(stats.last_saved_ms.load(std::memory_order_relaxed))},
        {"failingSince", iso_or_null(failing)},
        {"lastError", error ? boost::json::value(*error) : boost::json::value()}}}};
  body["role"] = routes.node.role;
  if (routes.engine.follower()) {
    // What the follower serves is as old as the last word from its primary.
    auto heard = stats.primary_contact_ms.load(std::memory_order_relaxed);
    boost::json::object primary{{"link", catalog::to_string(stats.primary.load(std::memory_order_relaxed))},
                                {"lastHeardFrom", iso_or_null(heard)},
                                {"snapshotVersion", snap.version}, {"linksMade", stats.links_made.load(std::memory_order_relaxed)},
                                {"copiesTaken", stats.copies_taken.load(std::memory_order_relaxed)}};
    primary["snapshotAgeMs"] = heard ? boost::json::value(routes.engine.context().clock->now_ms() - heard) : boost::json::value();
    body["primary"] = std::move(primary);
  } else if (routes.node.role == "primary") {
    body["followers"] = stats.followers.load(std::memory_order_relaxed);
  }
  // A node cut from its primary serves its last signed catalog until the note expires.
  if (auto pub = routes.engine.signed_catalog()) {
    auto left = (pub->expires_ms - routes.engine.context().clock->now_ms()) / 1000;
    body["signedCatalog"] = {{"sequence", pub->sequence},
                             {"expires", wire::format_iso_ms(pub->expires_ms)},
                             {"secondsLeft", std::max<std::int64_t>(left, 0)}};
  }
  return http::json_response(200, boost::json::serialize(body));
}

/// GET /discovery/terms: what every accepts entry must carry (what `z402-bazaar terms` prints).
http::response terms_response(const read_state& reads, const http::request& req) {
  auto res = not_modified(req, reads.terms_etag) ? not_modified_response(reads.terms_etag) : http::json_response(200, reads.terms_json);
  res.set(http::bhttp::field::etag, reads.terms_etag);
  res.set(http::bhttp::field::cache_control, "public, max-age=60");
  return res;
}

}  // namespace

read_state::read_state(const config::rail_terms& terms, std::string cursor_key)
    : terms_json(boost::json::serialize(config::to_json(terms))),
      terms_etag("\"" + crypto::sha256_hex(terms_json).substr(0, 32) + "\""),
      cursors(std::move(cursor_key)) {}

bazaar_routes::bazaar_routes(catalog::engine& e, auth::key_store& k, std::string cursor_key, settle_batcher& s,
                             boost::asio::any_io_executor checks, std::size_t declaration_bytes_in_flight)
    : engine(e),
      keys(k),
      reads(e.context().terms, std::move(cursor_key)),
      declarations(e, std::move(checks), declaration_bytes_in_flight),
      settles(s) {}

std::optional<http::response> screen(const bazaar_routes& routes, const http::request_header& req, route r,
                               std::optional<auth::provider_record>& writer) {
  if (r == route::not_found || (r == route::metrics && !routes.metrics.enabled))
    return http::error_response(404, "not_found", "no such endpoint");
  if (!method_allowed(r, req.method())) {
    auto res = http::error_response(405, "method_not_allowed",
                              "this endpoint answers " + std::string{allowed_methods(r)});
    res.set(http::bhttp::field::allow, allowed_methods(r));
    return res;
  }
  auto token = bearer_token(req);
  if (r == route::settled) {
    if (token && routes.keys.is_settle_key(*token)) return std::nullopt;
    if (token && routes.keys.authenticate(*token))
      return http::error_response(403, "forbidden", "a provider key cannot report settlements; use the rail's settle key");
    return unauthorized("a settlement needs Authorization: Bearer <settle key>");
  }
  if (r == route::declarations) {
    if (!token) return unauthorized("a declaration or a delisting needs Authorization: Bearer <provider key>");
    writer = routes.keys.authenticate(*token);
    if (!writer) return unauthorized("the provider key is not valid");
    if (auto ct = req.find(http::bhttp::field::content_type); ct != req.end()) {
      std::string_view v{ct->value().data(), ct->value().size()};
      if (v.substr(0, v.find(';')) != "application/json")
        return http::error_response(415, "unsupported_media_type", "a declaration is sent as application/json");
    }
    return std::nullopt;
  }
  // Reads are public, but a key that is presented must belong to a provider.
  if (token && !routes.keys.authenticate(*token)) return unauthorized("the Authorization header names no valid provider key");
  return std::nullopt;
}

namespace {

/// A catalog read at `snap`: its list, search or resource answer, or 304.
http::response catalog_read(const catalog::engine& engine, read_state& reads, const http::request& req, route r,
                            const catalog::snapshot_ptr& snap) {
  std::string_view target{req.target().data(), req.target().size()};
  auto q = target.find('?');
  auto query = q == std::string_view::npos ? std::string_view{} : target.substr(q + 1);
  auto etag = etag_of(*snap, target);
  if (not_modified(req, etag)) return not_modified_response(etag);
  if (r == route::resources) {
    auto list = parse_list_request(query);
    if (!list) return http::error_response(list.error());
    // Selected on a miss only, and once for both what the page is made of and its body.
    std::optional<list_page> page;
    auto selected = [&]() -> const list_page& {
      if (!page) page = select_list(*snap, *list);
      return *page;
    };
    return read_response(req, etag, [&] { return render_list(snap, *list, selected()); }, {reads.gzip, reads.pages},
                         [&] { return std::optional{list_content(selected(), *list)}; });
  }
  auto now = engine.context().clock->now_ms();
  if (r == route::search) {
    auto search = parse_search_request(query, reads.cursors, now);
    if (!search) return http::error_response(search.error());
    return read_response(req, etag, [&] { return render_search(*snap, *search, reads.cursors, now); }, {reads.gzip, reads.pages});
  }
  auto body = render_resource(*snap, query);
  if (!body) return http::error_response(body.error());
  return read_response(req, etag, [&] { return std::move(*body); }, {reads.gzip, reads.pages});
}

}  // namespace

http::response handle_read(bazaar_routes& routes, const http::request& req, route r) {
  if (r == route::web) return web_response(req, http::path_of({req.target().data(), req.target().size()}));
  if (r == route::metrics) return metrics_response(routes);
  if (r == route::terms) return terms_response(routes.reads, req);
  if (r == route::signed_catalog)
    return signed_catalog_response(req, http::path_of({req.target().data(), req.target().size()}), routes.engine.signed_catalog(),
                                   routes.engine.context().clock->now_ms());
  auto snap = routes.engine.snapshots().load_cached();
  if (r == route::health) return health_response(routes, *snap);
  auto res = catalog_read(routes.engine, routes.reads, req, r, snap);
  if (routes.engine.follower()) {
    // A follower's answer says which of the primary's versions it is and how long ago the
    // primary was last heard from: how stale it may be, while the primary is away too.
    res.set("Z402-Snapshot-Version", std::to_string(snap->version));
    auto heard = routes.engine.context().stats->primary_contact_ms.load(std::memory_order_relaxed);
    res.set("Z402-Snapshot-Age-Ms", heard ? std::to_string(routes.engine.context().clock->now_ms() - heard) : "unknown");
  }
  return res;
}

namespace {

// The body and its base64namespace {

// The body and its base64 copy in EXTENSION-RESPONSES (docs/wire.md §4). A counted or repeated
// payment's answer never changes, so it is made once rather than built, serialised and encoded
// on the CAF thread for every settle (answering was 6 % of the server's samples at 35k settles/s;
// made once, a settle costs 1-4 % less server CPU).
http::response settle_answer(const catalog::settle_outcome& outcome) {
  auto make = [](const std::string& json) {
    auto res = http::json_response(200, json);
    res.set("EXTENSION-RESPONSES", wire::base64_encode(json));
    return res;
  };
  if (outcome.state == catalog::settle_outcome::status::success) {
    static const http::response success = make(R"({"bazaar":{"status":"success"}})");
    return success;
  }
  return make(boost::json::serialize(
      boost::json::object{{"bazaar", boost::json::object{{"status", "rejected"}, {"rejectedReason", outcome.reason}}}}));
}

}  // namespace

void handle_settlement(bazaar_routes& routes, const http::request& req, std::function<void(http::response)> reply) {
  // Its tree in one arena: made with two allocations here, freed without a walk by the catalog.
  auto event = rules::parse_settlement(req.body());
  if (!event) return reply(invalid_request(event.error()));
  // No admission control here: a valid settle event never gets a 5xx (docs/contract.md §3). What is
  // in flight is bounded all the same, by the connections and their pipeline limit.
  auto done = [&routes, reply](catalog::settle_outcome outcome) {
    // A valid settle is answered 200 either way (docs/contract.md §3), except at a follower that did
    // not reach its primary: nothing was counted, and the rail node must try again.
    if (routes.engine.follower() && outcome.state == catalog::settle_outcome::status::rejected &&
        outcome.cause == catalog::settle_rejection::unavailable)
      return reply(unavailable_write(true, outcome.reason));
    reply(settle_answer(outcome));
  };
  routes.settles.add(std::move(*event),
                  catalog::settle_completion{done, catalog::settle_outcome::rejected(catalog::settle_rejection::unavailable, "the catalog is shutting down")});
}

bazaar_handler::bazaar_handler(bazaar_routes& routes) : routes_(routes), mcp_(make_catalog_mcp(routes.engine, routes.reads)) {}

std::size_t bazaar_handler::max_body_limit() const {
  return std::max({bazaar_routes::read_body_limit, declaration_desk::body_limit, bazaar_routes::settlement_body_limit});
}

http::header_verdict bazaar_handler::on_header(const http::request_header& req) {
  request_context context{route_of(http::path_of({req.target().data(), req.target().size()})), std::nullopt, nullptr};
  auto r = context.r;
  auto limit = r == route::declarations ? declaration_desk::body_limit
               : r == route::settled    ? bazaar_routes::settlement_body_limit
               : r == route::mcp        ? mcp_body_limit
                                        : bazaar_routes::read_body_limit;
  auto early = screen(routes_, req, r, context.writer);
  std::function<void(std::function<void()>)> before_body;
  if (r == route::declarations && !early) {
    // Read once its bytes fit in the budget (a chunked body, of unknown size, counts as the
    // route's limit: it is read alone).
    std::size_t bytes = limit;
    if (auto length = req.find(http::bhttp::field::content_length); length != req.end()) {
      std::string_view v{length->value().data(), length->value().size()};
      std::from_chars(v.data(), v.data() + v.size(), bytes);  // Beast has checked it is a number within the limit
    }
    context.body_bytes = std::make_shared<http::byte_budget::held>();
    before_body = [&budget = routes_.declarations.body_budget(), bytes, grant = context.body_bytes](std::function<void()> go) {
      budget.acquire(bytes, [grant, go = std::move(go)](http::byte_budget::held h) {
        *grant = std::move(h);
        go();
      });
    };
  }
  return {limit, std::move(early), std::move(context), std::move(before_body)};
}

std::optional<http::response> bazaar_handler::on_request(http::request& req, std::any& context, const http::responder& reply) {
  // Routed and authenticated in on_header: the route and the writer come from there.
  auto& known = std::any_cast<request_context&>(context);
  auto r = known.r;
  if (r == route::settled) {
    handle_settlement(routes_, req, reply);
    return std::nullopt;
  }
  if (r == route::mcp) return handle_mcp(routes_.node, mcp_, routes_.engine, routes_.reads, req);
  if (r != route::declarations) return handle_read(routes_, req, r);
  if (req.method() == http::bhttp::verb::delete_) routes_.declarations.delist(req, *known.writer, reply);
  else routes_.declarations.declare(req, *known.writer, std::move(*known.body_bytes), reply);
  return std::nullopt;
}

}  // namespace z402::routes
