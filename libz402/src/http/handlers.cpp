#include "http/handlers.hpp"

#include "z402/core/crypto.hpp"
#include "z402/http/access_log.hpp"
#include "http/catalog_mcp.hpp"
#include "http/list_query.hpp"
#include "http/metrics_page.hpp"
#include "http/read_response.hpp"
#include "http/resource_query.hpp"
#include "http/web_page.hpp"
#include "z402/rules/declaration.hpp"
#include "rules/delisting.hpp"
#include "z402/rules/settlement.hpp"
#include "z402/wire/base64.hpp"
#include "z402/wire/iso_time.hpp"
#include "z402/wire/json.hpp"

#include <boost/asio/post.hpp>
#include <boost/json.hpp>

#include <charconv>

namespace z402::http {
namespace {

constexpr std::size_t max_body_depth = 64;  // items[] > item > extensions > bazaar (32) and headroom

/// One admitted write. Admission control: CAF mailboxes are unbounded, so writes above
/// app_state::max_writes_in_flight get 503 at once. A slot counts in writes_in_flight until its
/// last copy is gone (held by whatever answers the write, on any path), so no path can forget to
/// release it, or release it twice.
class write_slot {
 public:
  using held = std::shared_ptr<const write_slot>;
  /// A slot, or nullptr when the limit is reached.
  static held admit(app_state& app) {
    if (app.writes_in_flight.fetch_add(1) < app.max_writes_in_flight) return held{new write_slot{app}};
    app.writes_in_flight.fetch_sub(1);
    return nullptr;
  }
  ~write_slot() { app_.writes_in_flight.fetch_sub(1); }
  write_slot(const write_slot&) = delete;
  write_slot& operator=(const write_slot&) = delete;

 private:
  explicit write_slot(app_state& app) : app_(app) {}
  app_state& app_;
};

response overloaded() { return error_response(503, "overloaded", "too many writes in flight; retry shortly"); }

response invalid_request(std::string_view message, std::optional<std::size_t> item, std::string_view field,
                         std::string_view reason) {
  boost::json::object detail{{"field", field}, {"reason", reason}};
  if (item) detail["item"] = *item;
  boost::json::value details = boost::json::array{detail};
  return error_response(400, "invalid_request", message, &details);
}

std::optional<std::string_view> bearer_token(const request_header& req) {
  auto it = req.find(bhttp::field::authorization);
  if (it == req.end()) return std::nullopt;
  std::string_view v{it->value().data(), it->value().size()};
  constexpr std::string_view scheme = "Bearer ";
  if (v.size() <= scheme.size() || !std::equal(scheme.begin(), scheme.end(), v.begin(), [](char a, char b) {
        return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
      }))
    return std::string_view{};
  return v.substr(scheme.size());
}

response unauthorized(std::string_view message) {
  auto res = error_response(401, "unauthorized", message);
  res.set(bhttp::field::www_authenticate, "Bearer");
  return res;
}

/// GET /health. A catalog that cannot save is "degraded" but still 200: reads are fine, and a
/// load balancer must not drop the node; the persistence object says since when and why.
response health_response(const app_state& app, const catalog::snapshot& snap) {
  auto& stats = *app.engine.context().stats;
  auto iso_or_null = [](std::int64_t ms) { return ms ? boost::json::value(wire::format_iso_ms(ms)) : boost::json::value(); };
  auto failing = stats.save_failing_since_ms.load(std::memory_order_acquire);
  auto error = failing ? stats.last_save_error.load(std::memory_order_acquire) : nullptr;
  boost::json::object body{
      {"status", failing ? "degraded" : "ok"},
      {"items", snap.items.size()},
      {"providers", app.keys.current()->providers.size()},
      {"settles",
       {{"counted", stats.settles_counted.load()}, {"repeated", stats.settles_repeated.load()}, {"rejected", stats.settles_rejected()}}},
      {"persistence",
       {{"lastSavedAt", iso_or_null(stats.last_saved_ms.load(std::memory_order_relaxed))},
        {"failingSince", iso_or_null(failing)},
        {"lastError", error ? boost::json::value(*error) : boost::json::value()}}}};
  body["role"] = app.role;
  if (app.engine.follower()) {
    // What the follower serves is as old as the last word from its primary.
    auto heard = stats.primary_contact_ms.load(std::memory_order_relaxed);
    boost::json::object primary{{"link", catalog::to_string(stats.primary.load(std::memory_order_relaxed))},
                                {"lastHeardFrom", iso_or_null(heard)},
                                {"snapshotVersion", snap.version}, {"linksMade", stats.links_made.load(std::memory_order_relaxed)},
                                {"copiesTaken", stats.copies_taken.load(std::memory_order_relaxed)}};
    primary["snapshotAgeMs"] = heard ? boost::json::value(app.engine.context().clock->now_ms() - heard) : boost::json::value();
    body["primary"] = std::move(primary);
  } else if (app.role == "primary") {
    body["followers"] = stats.followers.load(std::memory_order_relaxed);
  }
  return json_response(200, boost::json::serialize(body));
}

/// GET /discovery/terms: what every accepts entry must carry (what `z402-bazaar terms` prints).
response terms_response(const app_state& app, const request& req) {
  auto res = not_modified(req, app.terms_etag) ? not_modified_response(app.terms_etag) : json_response(200, app.terms_json);
  res.set(bhttp::field::etag, app.terms_etag);
  res.set(bhttp::field::cache_control, "public, max-age=60");
  return res;
}

}  // namespace

app_state::app_state(catalog::engine& e, auth::key_store& k, std::string cursor_key, settle_batcher& s,
                     boost::asio::any_io_executor checks_on, std::size_t declaration_bytes_in_flight)
    : engine(e),
      keys(k),
      cursors(std::move(cursor_key)),
      settles(s),
      checks(std::move(checks_on)),
      checker(e.context().terms, e.context().allow_http_resources, e.context().limits.max_items_per_provider),
      declaration_bytes(declaration_bytes_in_flight) {
  terms_json = boost::json::serialize(config::to_json(engine.context().terms));
  terms_etag = "\"" + crypto::sha256_hex(terms_json).substr(0, 32) + "\"";
}

route route_of(std::string_view path) {
  if (path == "/discovery/resources") return route::resources;
  if (path == "/discovery/search") return route::search;
  if (path == "/discovery/resource") return route::resource;
  if (path == "/discovery/terms") return route::terms;
  if (path == "/discovery/declarations") return route::declarations;
  if (path == "/discovery/settled") return route::settled;
  if (path == "/discovery/mcp") return route::mcp;
  if (path == "/health") return route::health;
  if (path == "/metrics") return route::metrics;
  if (is_web_path(path)) return route::web;
  return route::not_found;
}

std::string_view allowed_methods(route r) {
  if (r == route::declarations) return "POST, DELETE";
  return r == route::settled || r == route::mcp ? "POST" : "GET";
}

namespace {

bool method_allowed(route r, bhttp::verb v) {
  if (r == route::declarations) return v == bhttp::verb::post || v == bhttp::verb::delete_;
  return allowed_methods(r) == "POST" ? v == bhttp::verb::post : v == bhttp::verb::get;
}

}  // namespace

std::optional<response> screen(app_state& app, const request_header& req, route r,
                               std::optional<auth::provider_record>& writer) {
  if (r == route::not_found || (r == route::metrics && !app.metrics_enabled))
    return error_response(404, "not_found", "no such endpoint");
  if (!method_allowed(r, req.method())) {
    auto res = error_response(405, "method_not_allowed",
                              "this endpoint answers " + std::string{allowed_methods(r)});
    res.set(bhttp::field::allow, allowed_methods(r));
    return res;
  }
  auto token = bearer_token(req);
  if (r == route::settled) {
    if (token && app.keys.is_settle_key(*token)) return std::nullopt;
    if (token && app.keys.authenticate(*token))
      return error_response(403, "forbidden", "a provider key cannot report settlements; use the rail's settle key");
    return unauthorized("a settlement needs Authorization: Bearer <settle key>");
  }
  if (r == route::declarations) {
    if (!token) return unauthorized("a declaration or a delisting needs Authorization: Bearer <provider key>");
    writer = app.keys.authenticate(*token);
    if (!writer) return unauthorized("the provider key is not valid");
    if (auto ct = req.find(bhttp::field::content_type); ct != req.end()) {
      std::string_view v{ct->value().data(), ct->value().size()};
      if (v.substr(0, v.find(';')) != "application/json")
        return error_response(415, "unsupported_media_type", "a declaration is sent as application/json");
    }
    return std::nullopt;
  }
  // Reads are public, but a key that is presented must belong to a provider.
  if (token && !app.keys.authenticate(*token)) return unauthorized("the Authorization header names no valid provider key");
  return std::nullopt;
}

namespace {

/// A catalog read at `snap`: its list, search or resource answer, or 304.
response catalog_read(app_state& app, const request& req, route r, const catalog::snapshot_ptr& snap) {
  std::string_view target{req.target().data(), req.target().size()};
  auto q = target.find('?');
  auto query = q == std::string_view::npos ? std::string_view{} : target.substr(q + 1);
  auto etag = etag_of(*snap, target);
  if (not_modified(req, etag)) return not_modified_response(etag);
  if (r == route::resources) {
    auto list = parse_list_request(query);
    if (!list) return error_response(list.error());
    // Selected on a miss only, and once for both what the page is made of and its body.
    std::optional<list_page> page;
    auto selected = [&]() -> const list_page& {
      if (!page) page = select_list(*snap, *list);
      return *page;
    };
    return read_response(req, etag, [&] { return render_list(snap, *list, selected()); }, {app.gzip, app.pages},
                         [&] { return std::optional{list_content(selected(), *list)}; });
  }
  auto now = app.engine.context().clock->now_ms();
  if (r == route::search) {
    auto search = parse_search_request(query, app.cursors, now);
    if (!search) return error_response(search.error());
    return read_response(req, etag, [&] { return render_search(*snap, *search, app.cursors, now); }, {app.gzip, app.pages});
  }
  auto body = render_resource(*snap, query);
  if (!body) return error_response(body.error());
  return read_response(req, etag, [&] { return std::move(*body); }, {app.gzip, app.pages});
}

}  // namespace

response handle_read(app_state& app, const request& req, route r) {
  if (r == route::web) return web_response(req, path_of({req.target().data(), req.target().size()}));
  if (r == route::metrics) return metrics_response(app);
  if (r == route::terms) return terms_response(app, req);
  auto snap = app.engine.snapshots().load_cached();
  if (r == route::health) return health_response(app, *snap);
  auto res = catalog_read(app, req, r, snap);
  if (app.engine.follower()) {
    // A follower's answer says which of the primary's versions it is and how long ago the
    // primary was last heard from: how stale it may be, while the primary is away too.
    res.set("Z402-Snapshot-Version", std::to_string(snap->version));
    auto heard = app.engine.context().stats->primary_contact_ms.load(std::memory_order_relaxed);
    res.set("Z402-Snapshot-Age-Ms", heard ? std::to_string(app.engine.context().clock->now_ms() - heard) : "unknown");
  }
  return res;
}

namespace {

// A write that did not land. At a follower it means the primary was not reached:
// the client is told when to try again.
response unavailable_write(const app_state& app, const std::string& why) {
  auto res = error_response(503, "unavailable", why);
  if (app.engine.follower()) res.set(bhttp::field::retry_after, "1");
  return res;
}

response declared_response(app_state& app, const catalog::write_outcome& outcome) {
  using status = catalog::write_outcome::status;
  if (outcome.state == status::ok) {
    app.declarations.accepted.add();
    boost::json::object answer{{"accepted", outcome.accepted}, {"lastSeen", wire::format_iso_ms(outcome.last_seen_ms)}};
    return json_response(200, boost::json::serialize(answer));
  }
  if (outcome.state == status::refused) {
    app.declarations.refused[rules::budget_family].add();
    // A budget: the API answers invalid_request for the catalog's as for the provider's own.
    auto& why = outcome.problem;
    return invalid_request(why.reason, std::nullopt, why.field, why.reason);
  }
  app.declarations.unavailable.add();
  return unavailable_write(app, outcome.problem.reason);
}

/// Every rule on the body, then the upsert; `reply` runs once, and `slot` goes with it.
void check_and_declare(app_state& app, const std::string& body, const auth::provider_record& provider, std::string digest,
                       write_slot::held slot, std::function<void(response)> reply) {
  auto answer = [reply, slot = std::move(slot)](response res) { reply(std::move(res)); };
  // Into one arena, like a settle body: the tree of up to 17 MiB of JSON is freed at once, not
  // node by node, once the items it holds are checked or recognised.
  auto doc = wire::parse_strict_document(body, max_body_depth);
  if (!doc) {
    app.declarations.refused[rules::rule_family_of("", false)].add();
    return answer(invalid_request(doc.error().reason, std::nullopt, "", doc.error().reason));
  }
  auto checked = app.checker.check(provider.name, provider.pay_to, **doc, std::move(digest));
  if (!checked) {
    auto& e = checked.error();
    app.declarations.refused[rules::rule_family_of(e.field, e.item.has_value())].add();
    return answer(invalid_request(e.message(), e.item, e.field, e.reason));
  }
  // What the catalog took is remembered on this thread, for the provider's next declaration.
  auto items = std::make_shared<std::vector<catalog::declaration_checker::checked_item>>(std::move(checked->items));
  auto on_declared = [&app, answer, items, name = provider.name, pay_to = provider.pay_to](catalog::write_outcome o) {
    if (o.state == catalog::write_outcome::status::ok)
      boost::asio::post(app.checks, [&app, items, name, pay_to, kept = std::move(o.kept)] {
        app.checker.remember(name, pay_to, std::move(*items), kept);
      });
    answer(declared_response(app, o));
  };
  app.engine.declare(provider.name, std::move(checked->command),
                     catalog::write_completion{on_declared, catalog::write_outcome::unavailable("the catalog is shutting down")});
}

}  // namespace

void handle_declaration(app_state& app, request& req, const auth::provider_record& provider, byte_budget::held body_bytes,
                        std::function<void(response)> reply) {
  // Admitted before the checks: the queue of declarations waiting for them is bounded too.
  auto slot = write_slot::admit(app);
  if (!slot) {
    app.declarations.unavailable.add();
    return reply(overloaded());
  }
  // The body's bytes stay counted in the budget for as long as the body itself lives.
  auto held = std::make_shared<std::pair<std::string, byte_budget::held>>(std::move(req.body()), std::move(body_bytes));
  std::shared_ptr<const std::string> body{held, &held->first};
  boost::asio::post(app.checks, [&app, body, provider, slot, reply = std::move(reply)]() mutable {
    // A heartbeat repeats the provider's last declaration byte for byte: recognised by its
    // digest, it only moves lastSeen on, without parsing and checking it again.
    auto digest = crypto::sha256_hex(*body);
    auto on_repeat = [&app, body, provider, digest, slot, reply](catalog::write_outcome o) {
      if (o.state != catalog::write_outcome::status::not_a_repeat) return reply(declared_response(app, o));
      boost::asio::post(app.checks, [&app, body, provider, digest, slot, reply] {
        check_and_declare(app, *body, provider, digest, slot, reply);
      });
    };
    app.engine.repeat_declaration(provider.name, digest,
                                  catalog::write_completion{on_repeat, catalog::write_outcome::unavailable("the catalog is shutting down")});
  });
}

void handle_delisting(app_state& app, const request& req, const auth::provider_record& provider,
                      std::function<void(response)> reply) {
  auto doc = wire::parse_strict(req.body(), max_body_depth);
  if (!doc) return reply(invalid_request(doc.error().reason, std::nullopt, "", doc.error().reason));
  auto named = rules::read_delisting(*doc, app.engine.context().limits.max_items_per_provider);
  if (!named) return reply(invalid_request(named.error().message(), named.error().item, named.error().field, named.error().reason));
  auto slot = write_slot::admit(app);
  if (!slot) return reply(overloaded());
  catalog::delist_command cmd{named->all, {}};
  for (auto& id : named->items) cmd.keys.push_back(id.key());
  app.engine.delist(provider.name, std::move(cmd),
                    catalog::write_completion{[&app, slot, reply](catalog::write_outcome o) {
                                                if (o.state != catalog::write_outcome::status::ok)
                                                  return reply(unavailable_write(app, o.problem.reason));
                                                reply(json_response(200, boost::json::serialize(boost::json::object{{"removed", o.accepted}})));
                                              },
                                              catalog::write_outcome::unavailable("the catalog is shutting down")});
}

namespace {

// The body and its base64 copy in EXTENSION-RESPONSES (docs/wire.md §4). A counted or repeated
// payment's answer never changes, so it is made once rather than built, serialised and encoded
// on the CAF thread for every settle (answering was 6 % of the server's samples at 35k settles/s;
// made once, a settle costs 1-4 % less server CPU, e187d22).
response settle_answer(const catalog::settle_outcome& outcome) {
  auto make = [](const std::string& json) {
    auto res = json_response(200, json);
    res.set("EXTENSION-RESPONSES", wire::base64_encode(json));
    return res;
  };
  if (outcome.state == catalog::settle_outcome::status::success) {
    static const response success = make(R"({"bazaar":{"status":"success"}})");
    return success;
  }
  return make(boost::json::serialize(
      boost::json::object{{"bazaar", boost::json::object{{"status", "rejected"}, {"rejectedReason", outcome.reason}}}}));
}

}  // namespace

void handle_settlement(app_state& app, const request& req, std::function<void(response)> reply) {
  // Its tree in one arena: made with two allocations here, freed without a walk by the catalog.
  auto event = rules::parse_settlement(req.body());
  if (!event) return reply(invalid_request(event.error().message(), std::nullopt, event.error().field, event.error().reason));
  // No admission control here: a valid settle event never gets a 5xx (docs/contract.md §3). What is
  // in flight is bounded all the same, by the connections and their pipeline limit.
  auto done = [&app, reply](catalog::settle_outcome outcome) {
    // A valid settle is answered 200 either way (docs/contract.md §3), except at a follower that did
    // not reach its primary: nothing was counted, and the rail node must try again.
    if (app.engine.follower() && outcome.state == catalog::settle_outcome::status::rejected &&
        outcome.cause == catalog::settle_rejection::unavailable)
      return reply(unavailable_write(app, outcome.reason));
    reply(settle_answer(outcome));
  };
  app.settles.add(std::move(*event),
                  catalog::settle_completion{done, catalog::settle_outcome::rejected(catalog::settle_rejection::unavailable, "the catalog is shutting down")});
}

bazaar_handler::bazaar_handler(app_state& app) : app_(app), mcp_(make_catalog_mcp(app)) {}

std::size_t bazaar_handler::max_body_limit() const {
  return std::max({app_.read_body_limit, app_.declaration_body_limit, app_.settlement_body_limit});
}

header_verdict bazaar_handler::on_header(const request_header& req) {
  request_context context{route_of(path_of({req.target().data(), req.target().size()})), std::nullopt, nullptr};
  auto r = context.r;
  auto limit = r == route::declarations ? app_.declaration_body_limit
               : r == route::settled    ? app_.settlement_body_limit
               : r == route::mcp        ? mcp_body_limit
                                        : app_.read_body_limit;
  auto early = screen(app_, req, r, context.writer);
  std::function<void(std::function<void()>)> before_body;
  if (r == route::declarations && !early) {
    // Read once its bytes fit in the budget (a chunked body, of unknown size, counts as the
    // route's limit: it is read alone).
    std::size_t bytes = limit;
    if (auto length = req.find(bhttp::field::content_length); length != req.end()) {
      std::string_view v{length->value().data(), length->value().size()};
      std::from_chars(v.data(), v.data() + v.size(), bytes);  // Beast has checked it is a number within the limit
    }
    context.body_bytes = std::make_shared<byte_budget::held>();
    before_body = [&budget = app_.declaration_bytes, bytes, grant = context.body_bytes](std::function<void()> go) {
      budget.acquire(bytes, [grant, go = std::move(go)](byte_budget::held h) {
        *grant = std::move(h);
        go();
      });
    };
  }
  return {limit, std::move(early), std::move(context), std::move(before_body)};
}

std::optional<response> bazaar_handler::on_request(request& req, std::any& context, const responder& reply) {
  // Routed and authenticated in on_header: the route and the writer come from there.
  auto& known = std::any_cast<request_context&>(context);
  auto r = known.r;
  if (r == route::settled) {
    handle_settlement(app_, req, reply);
    return std::nullopt;
  }
  if (r == route::mcp) return handle_mcp(app_, mcp_, req);
  if (r != route::declarations) return handle_read(app_, req, r);
  if (req.method() == bhttp::verb::delete_) handle_delisting(app_, req, *known.writer, reply);
  else handle_declaration(app_, req, *known.writer, std::move(*known.body_bytes), reply);
  return std::nullopt;
}

}  // namespace z402::http
