#include "z402/seller/route_check.hpp"

#include "z402/agent/discover.hpp"
#include "z402/agent/origin_binding.hpp"
#include "z402/config/catalog_limits.hpp"
#include "z402/config/rail_terms.hpp"
#include "z402/kit/payment_required.hpp"
#include "z402/rules/declaration.hpp"
#include "z402/rules/price_label.hpp"
#include "z402/rules/text.hpp"
#include "z402/wire/iso_time.hpp"
#include "z402/wire/json.hpp"
#include "z402/wire/payment_required.hpp"
#include "wire/url.hpp"

#include <boost/json.hpp>

namespace z402::seller {
namespace {

namespace json = boost::json;

constexpr std::size_t max_depth = 64;

struct run {
  http::client& client;
  const check_request& req;
  std::chrono::steady_clock::time_point deadline;
  std::size_t budget;
  check_report report;

  void add(std::string name, bool ok, std::string detail, std::string fix = {}) {
    report.lines.push_back({std::move(name), ok, rules::terminal_safe(detail), rules::terminal_safe(fix)});
  }

  http::fetch_result get(const std::string& url) {
    http::client_request r;
    r.url = url;
    return client.fetch(r, deadline, budget);
  }
};

std::string text_of(const json::object& o, std::string_view key) {
  auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string{v->as_string()} : std::string{};
}

/// "1000 zat/quote (0.00001 ZEC) to uregtest1seller, ..." for each accepts entry of an item.
std::string prices_of(const json::object& item) {
  auto* unit = wire::find_path(item, {"extensions", "z402", "unit"});
  auto unit_text = unit && unit->is_string() ? std::string_view{unit->get_string()} : std::string_view{};
  std::string out;
  auto* accepts = item.if_contains("accepts");
  if (!accepts || !accepts->is_array()) return out;
  for (auto& e : accepts->as_array())
    if (auto* entry = e.if_object())
      out.append(out.empty() ? "" : ", ")
          .append(rules::price_label(text_of(*entry, "amount"), text_of(*entry, "asset"), unit_text))
          .append(" to ")
          .append(text_of(*entry, "payTo"));
  return out;
}

/// Compares the listing with the item the 402 builds: payTo, prices, description, schema, method.
void compare(run& r, const json::object& built, const json::object& listed) {
  auto want_prices = prices_of(built), have_prices = prices_of(listed);
  bool same_prices = want_prices == have_prices;
  r.add("price and payTo", same_prices, same_prices ? want_prices : "the 402 asks " + want_prices + "; the listing shows " + have_prices,
        "declare again (the kit does at its next beat): a listing changes only with a declaration");
  // The fields a reader chooses by; the bazaar info's example values vary with each request.
  auto same = [&](std::string_view name, std::initializer_list<std::string_view> path) {
    auto at = [&](const json::object& item) -> const json::value* {
      const json::value* v = nullptr;
      const json::object* o = &item;
      for (auto key : path) {
        v = o ? o->if_contains(key) : nullptr;
        o = v ? v->if_object() : nullptr;
      }
      return v;
    };
    auto* a = at(built);
    auto* b = at(listed);
    bool equal = (!a && !b) || (a && b && *a == *b);
    auto shown = [](const json::value* v) {
      auto text = v ? json::serialize(*v) : std::string{"none"};
      return text.size() > 120 ? text.substr(0, 117) + "..." : text;
    };
    r.add(std::string{name}, equal, equal ? shown(a) : "the 402 says " + shown(a) + "; the listing shows " + shown(b),
          "declare again: the listing keeps what the last declaration said");
  };
  same("description", {"description"});
  same("mimeType", {"mimeType"});
  same("input and output schema", {"extensions", "bazaar", "schema"});
  same("billing unit", {"extensions", "z402"});
}

// Each step adds its lines; one that cannot go on says so with nothing (and, when the catalog
// or the route could not be read at all, exit code 3).

// 1. The rail's terms, from the catalog.
std::optional<config::rail_terms> read_terms(run& r) {
  auto answer = r.get(http::endpoint_url(r.req.discovery, "/discovery/terms"));
  if (!answer) {
    r.add("the catalog's terms", false, "could not read " + r.req.discovery + ": " + answer.error().reason, "check --discovery");
    r.report.exit_code = 3;
    return std::nullopt;
  }
  auto& res = *answer;
  expected<config::rail_terms> terms = error{errc::unavailable, "", ""};
  if (res.result_int() == 200) {
    auto doc = wire::parse_strict(res.body(), 16);
    terms = doc ? config::terms_from_json(*doc, config::default_rail_terms()) : doc.error();
  }
  if (!terms) {
    r.add("the catalog's terms", false, "GET /discovery/terms answered " + std::to_string(res.result_int()) + " " + terms.error().reason,
          "is --discovery a z402 Bazaar?");
    r.report.exit_code = 3;
    return std::nullopt;
  }
  r.add("the catalog's terms", true, terms->scheme + " on " + terms->network + " in " + terms->asset);
  return std::move(*terms);
}

// 2. The route, unpaid: its PaymentRequired.
std::optional<json::object> read_payment_required(run& r) {
  http::client_request unpaid;
  unpaid.url = r.req.url;
  unpaid.method = http::bhttp::string_to_verb(r.req.method);
  if (!r.req.body.empty()) {
    unpaid.body = r.req.body;
    unpaid.headers.emplace_back("Content-Type", "application/json");
  }
  auto answer = r.client.fetch(unpaid, r.deadline, r.budget);
  if (!answer) {
    r.add("the route answers 402", false, "could not reach " + r.req.url + ": " + answer.error().reason, "is the service up at this URL?");
    r.report.exit_code = 3;
    return std::nullopt;
  }
  auto& res = *answer;
  auto header = res.find("PAYMENT-REQUIRED");
  auto answer_402 = res.result_int() == 402 ? wire::payment_required_of(header == res.end() ? std::nullopt : std::optional<std::string_view>{header->value()}, res.body())
                                             : std::nullopt;
  if (res.result_int() != 402 || !answer_402) {
    auto why = res.result_int() != 402
                   ? "it answered " + std::to_string(res.result_int()) + " " + std::string{res.reason()} + ", not 402 Payment Required"
                   : std::string{"it answered 402 without a PaymentRequired (no PAYMENT-REQUIRED header, no x402 v1 body)"};
    r.add("the route answers 402", false, why,
          res.result_int() == 404 ? "check the URL and --method: the service does not know this route"
                                  : "a paid route answers an unpaid request with 402 and its terms (the kit does)");
    return std::nullopt;
  }
  r.add("the route answers 402", true, "with a " + std::string{answer_402->how});
  return std::move(answer_402->required);
}

// The item a declaration of the route would carry, checked.
struct declared_route {
  json::object item;
  rules::item_identity identity;
  std::string pay_to;  // its first accepts entry's
};

// 3. Every accepts entry against the terms, and the item a declaration would carry.
std::optional<declared_route> check_declaration(run& r, const config::rail_terms& terms, const json::object& required) {
  auto* accepts = required.if_contains("accepts");
  auto pay_to = accepts && accepts->is_array() && !accepts->as_array().empty() && accepts->as_array()[0].is_object()
                    ? text_of(accepts->as_array()[0].as_object(), "payTo")
                    : std::string{};
  auto built = kit::declared_item(required);
  auto checked = rules::validate_declaration(json::object{{"items", json::array{built}}},
                                             rules::declaration_context{terms, pay_to, true, 1});
  if (!checked) {
    auto& e = checked.error();
    r.add("the catalog's rules", false, e.field + ": " + e.reason,
          "a declaration of this route is refused for it: change what the 402 says for " + e.field);
    return std::nullopt;
  }
  auto& identity = checked->front().identity;
  r.add("the catalog's rules", true, "a declaration of " + identity.selector + " " + identity.resource + " passes every rule");
  if (identity.resource.starts_with("http://"))
    r.add("resource scheme", true, "plain http: listed only by catalogs that allow http resources (local development)");
  return declared_route{std::move(built), identity, std::move(pay_to)};
}

// 4. The listing of the route by the provider of its payTo, read into `listing`.
const json::object* find_listing(run& r, const declared_route& route, expected<json::value>& listing) {
  auto& identity = route.identity;
  auto selector = r.req.tool.empty() ? "&method=" + wire::query_escape(identity.selector) : "&toolName=" + wire::query_escape(r.req.tool);
  auto lookup = r.get(http::endpoint_url(r.req.discovery, "/discovery/resource?type=" + identity.type + "&url=" +
                                                              wire::query_escape(identity.resource) + selector));
  if (!lookup) {
    r.add("listed", false, "could not read the catalog: " + lookup.error().reason);
    r.report.exit_code = 3;
    return nullptr;
  }
  auto& found = *lookup;
  if (found.result_int() == 404) {
    r.add("listed", false, "no provider lists " + identity.selector + " " + identity.resource,
          "declare it (POST /discovery/declarations with your provider key; the kit does at start and every 30 s)");
    return nullptr;
  }
  listing = found.result_int() == 200 ? wire::parse_strict(found.body(), max_depth) : expected<json::value>{error{errc::not_found, "", ""}};
  auto* resources = listing && listing->is_object() ? listing->as_object().if_contains("resources") : nullptr;
  if (!resources || !resources->is_array()) {
    r.add("listed", false, "GET /discovery/resource answered " + std::to_string(found.result_int()));
    r.report.exit_code = 3;
    return nullptr;
  }
  auto paid_to = [&](const json::object& listed) {
    auto* a = listed.if_contains("accepts");
    return a && a->is_array() && std::any_of(a->as_array().begin(), a->as_array().end(), [&](const json::value& e) {
             return e.is_object() && text_of(e.as_object(), "payTo") == route.pay_to;
           });
  };
  const json::object* mine = nullptr;
  for (auto& v : resources->as_array())
    if (auto* o = v.if_object(); o && paid_to(*o)) mine = o;
  if (!mine) r.add("listed", false, "listed, but not by payTo " + route.pay_to, "the provider whose key declares it has another payTo");
  return mine;
}

// 5. The listing beside what the 402 says, and whether it is kept alive.
void check_listing(run& r, const declared_route& route, const json::object& mine, std::int64_t now_ms) {
  auto listed_by = text_of(mine, "listedBy");
  r.add("listed", true, "by payTo " + route.pay_to + (listed_by.empty() ? "" : ", from its " + listed_by));
  if (listed_by == "settlement")
    r.add("listed from a declaration", false, "listed from payments alone: its description and schema are what payers echoed",
          "declare the route, so the listing says what the 402 says");
  compare(r, route.item, mine);
  auto live = agent::activity_of(mine, now_ms);
  auto seen = wire::parse_iso_ms(text_of(mine, "lastSeen"));
  std::string eviction;
  if (seen) eviction = "; evicted at " + wire::format_iso_ms(*seen + config::catalog_limits{}.retention.count()) + " without a declaration or payment (7-day default)";
  r.add("declared recently", live.status == "up",
        live.status.empty() ? "no lastSeen: never declared" : live.status + ", last declaration " + std::to_string(live.age_seconds) + " s ago" + eviction,
        live.status == "up" ? "" : "the service stopped declaring: is it running, ready, and does it reach the catalog?");
  r.add("paid calls today", true, std::to_string(live.today));
}

// 6. Whether the route's origin names its payTo for it, as an agent checks before it picks the
// route (agent/origin_binding.hpp). The seller checks its own service: a local address and plain
// http are read too, and the line says an agent would not.
void check_origin(run& r, const declared_route& route) {
  if (route.identity.type == "mcp") return;
  agent::origin_policy policy;
  policy.allow_private = true;
  policy.require_https = false;
  auto verdict = agent::check_manifest(r.client, route.identity.selector, route.identity.resource, {route.pay_to}, policy, r.deadline);
  if (!verdict.verified) {
    r.add("origin binding", false, verdict.check + ": " + verdict.reason,
          "serve /.well-known/x402 listing this route with accepts[].payTo " + route.pay_to +
              " (the kit's manifest does): agents check it before they pick the route");
    return;
  }
  bool https = route.identity.resource.starts_with("https://");
  r.add("origin binding", true,
        "the origin's /.well-known/x402 names payTo " + route.pay_to + " for " + route.identity.selector + " " + route.identity.resource +
            (https ? std::string{} : std::string{" (agents read origins over HTTPS only: plain http is never origin-verified)"}));
}

}  // namespace

check_report check_route(http::client& client, const check_request& req, std::int64_t now_ms) {
  run r{client, req, std::chrono::steady_clock::now() + req.deadline, req.budget, {}};
  auto terms = read_terms(r);
  if (!terms) return std::move(r.report);
  auto required = read_payment_required(r);
  if (!required) return std::move(r.report);
  auto route = check_declaration(r, *terms, *required);
  if (!route) return std::move(r.report);
  expected<json::value> listing = error{errc::not_found, "", ""};
  auto* mine = find_listing(r, *route, listing);
  if (!mine) return std::move(r.report);
  check_listing(r, *route, *mine, now_ms);
  check_origin(r, *route);
  bool all_ok = std::all_of(r.report.lines.begin(), r.report.lines.end(), [](auto& l) { return l.ok; });
  r.report.exit_code = all_ok ? 0 : 1;
  return std::move(r.report);
}

std::string render_text(const check_report& report) {
  std::string out;
  for (auto& l : report.lines) {
    out.append(l.ok ? "ok    " : "FAIL  ").append(l.name).append(": ").append(l.detail);
    if (!l.ok && !l.fix.empty()) out.append("\n      -> ").append(l.fix);
    out.push_back('\n');
  }
  out.append(report.exit_code == 0 ? "listed, and the listing matches the 402\n"
             : report.exit_code == 3 ? "could not check: the route or the catalog could not be read\n"
                                     : "not listed as the 402 says: see FAIL above\n");
  return out;
}

std::string render_json(const check_report& report) {
  json::array lines;
  for (auto& l : report.lines) {
    json::object o{{"check", l.name}, {"ok", l.ok}, {"detail", l.detail}};
    if (!l.ok && !l.fix.empty()) o["fix"] = l.fix;
    lines.push_back(std::move(o));
  }
  return json::serialize(json::object{{"checks", std::move(lines)}, {"exitCode", report.exit_code}}) + "\n";
}

}  // namespace z402::seller
