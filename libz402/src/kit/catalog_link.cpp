#include "z402/kit/catalog_link.hpp"

#include "core/detached.hpp"
#include "z402/http/client.hpp"
#include "z402/rules/declaration.hpp"
#include "wire/url.hpp"
#include "z402/wire/json.hpp"

#include <boost/json.hpp>
#include <caf/all.hpp>

#include <cstdio>
#include <set>

namespace z402::kit {
namespace {

constexpr std::size_t answer_budget = 1u << 20;  // the catalog's answers are small
constexpr std::size_t list_budget = 64u << 20;   // a provider's whole listing: at most 1,000 items of 128 KiB
constexpr std::size_t max_reason_chars = 200;

/// What the catalog said, as printable ASCII, bounded, with the key (if echoed) removed.
std::string printable(std::string text, const std::string& key) {
  if (!key.empty())
    for (auto at = text.find(key); at != std::string::npos; at = text.find(key)) text.replace(at, key.size(), "[key]");
  std::string out;
  for (unsigned char c : text) {
    if (out.size() >= max_reason_chars) return out + "...";
    out += c >= 0x20 && c < 0x7f ? static_cast<char>(c) : '?';
  }
  return out;
}

/// A non-200 answer as an error: the catalog's own code when it names one it documents.
error refusal(const http::client_response& res, const std::string& key) {
  std::string why = std::to_string(res.result_int());
  auto code = errc::unavailable;
  auto body = wire::parse_strict(res.body(), 16);
  if (body && body->is_object()) {
    auto& o = body->get_object();
    if (auto named = wire::find_string(o, "error")) {
      why += " " + std::string{*named};
      code = errc_from_string(*named).value_or(code);
    }
    if (auto message = wire::find_string(o, "message")) why += ": " + std::string{*message};
  }
  return {code, "", "refused by the catalog: " + printable(why, key)};
}

/// How every failure to reach the catalog begins: the outcome log treats them as one.
constexpr std::string_view unreachable = "the catalog could not be reached";

/// One request to the catalog under the link's timeout and `budget`: its answer, or why it
/// could not be had (printable, no key). One client per call: a beat every 30 s does not need
/// connection reuse, and a fresh TLS context picks up trust store changes.
http::fetch_result call_catalog(const catalog_link_options& link, const http::client_request& req, std::size_t budget) {
  http::client client{link.verify_tls};
  auto result = client.fetch(req, std::chrono::steady_clock::now() + link.timeout, budget);
  if (!result) return error{result.error().code, "", std::string{unreachable} + ": " + printable(result.error().reason, link.key)};
  return result;
}

/// The outcome-change log: one line when the outcome differs from the last one.
struct outcome_log {
  std::string last;
  void note(const catalog_link_options& link, const std::string& what, const expected<std::string>& outcome) {
    auto& line = outcome ? *outcome : outcome.error().reason;
    // The catalog unreachable is one outcome however the connection failed: a stopping catalog
    // resets a connection its closing listener had queued, and refuses the next one.
    std::string_view kind = std::string_view{line}.starts_with(unreachable) ? unreachable : std::string_view{line};
    if (kind == last) return;
    last = kind;
    link.log.with_component("kit.catalog_link").info(what + ": " + line);
  }
};

/// The identity keys of the routes `service` declares, as the catalog computes them (its own rules).
std::set<std::string> served_keys(const paid_service& service) {
  auto& id = service.identity();
  // Only the identities matter here: plain-http origins are the catalog's to accept or refuse.
  auto checked = rules::validate_declaration(service.declaration(),
                                             rules::declaration_context{id.terms, id.pay_to, true, 1u << 16});
  std::set<std::string> keys;
  if (checked)
    for (auto& item : *checked) keys.insert(item.identity.key());
  return keys;
}

std::string origin_of(std::string_view url) {
  auto parts = wire::parse_absolute_url(url);
  return parts ? parts->scheme + "://" + parts->host + (parts->port.empty() ? "" : ":" + parts->port) : std::string{};
}

/// The identity of a listed item, as the listing shows it.
std::optional<std::pair<rules::item_identity, boost::json::object>> listed_identity(const boost::json::value& v) {
  auto* item = v.if_object();
  if (!item) return std::nullopt;
  auto type = wire::find_string(*item, "type");
  auto resource = wire::find_string(*item, "resource");
  if (!type || !resource) return std::nullopt;
  std::string selector = *type == "mcp" ? "" : "GET";
  if (auto* ext = item->if_contains("extensions"); ext && ext->is_object())
    if (auto* bazaar = ext->as_object().if_contains("bazaar"); bazaar && bazaar->is_object())
      if (auto* info = bazaar->as_object().if_contains("info"); info && info->is_object())
        if (auto* input = info->as_object().if_contains("input"); input && input->is_object()) {
          if (auto m = wire::find_string(input->as_object(), *type == "mcp" ? "toolName" : "method")) selector = *m;
        }
  rules::item_identity id{std::string{*type}, std::string{*resource}, selector};
  boost::json::object named{{"type", id.type}, {"resource", id.resource}};
  named[id.type == "mcp" ? "toolName" : "method"] = id.selector;
  return std::pair{std::move(id), std::move(named)};
}

/// Removes this service's stale listings; says what it did, or why it could not.
expected<std::string> prune(const catalog_link_options& link, const paid_service& service, const std::set<std::string>& served) {
  auto failed = [](std::string why) { return error{errc::unavailable, "", std::move(why)}; };
  http::client_request req;
  req.url = http::endpoint_url(link.discovery_url, "/discovery/resources?limit=1000&payTo=" + wire::query_escape(service.identity().pay_to));
  auto result = call_catalog(link, req, list_budget);
  if (!result) return result.error();
  auto& res = *result;
  if (res.result_int() != 200) return failed("the catalog's list answered " + std::to_string(res.result_int()));
  auto page = wire::parse_strict(res.body(), 64);
  auto* items = page && page->is_object() ? page->get_object().if_contains("items") : nullptr;
  if (!items || !items->is_array()) return failed("the catalog's list is not a catalog page");
  auto own = origin_of(service.identity().public_url);
  boost::json::array stale;
  for (auto& v : items->as_array()) {
    auto listed = listed_identity(v);
    if (listed && origin_of(listed->first.resource) == own && !served.contains(listed->first.key()))
      stale.push_back(std::move(listed->second));
  }
  if (stale.empty()) return "every listed route under " + own + " is served";
  auto count = stale.size();
  auto removed = post_to_catalog(link, "/discovery/declarations", boost::json::serialize(boost::json::object{{"items", std::move(stale)}}),
                                 http::bhttp::verb::delete_);
  if (!removed) return removed;
  return "removed " + std::to_string(count) + " listed route(s) this service no longer serves";
}

struct heartbeat_state {
  static inline const char* name = "z402.kit.heartbeat";
  heartbeat_options options;
  std::shared_ptr<const paid_service> service;
  std::set<std::string> served;  // identity keys of its routes
  bool was_ready = false;
  bool pruned = false;           // stale listings removed since start
  std::chrono::steady_clock::time_point next_due{};
  outcome_log log;
  outcome_log prune_log;
};

heartbeat_actor::behavior_type heartbeat(heartbeat_actor::stateful_pointer<heartbeat_state> self,
                                         heartbeat_options options, std::shared_ptr<const paid_service> service) {
  self->state.options = std::move(options);
  self->state.service = std::move(service);
  self->state.served = served_keys(*self->state.service);
  self->send(self, atom::beat::value);
  return {[=](atom::beat) {
    auto& st = self->state;
    auto now = std::chrono::steady_clock::now();
    if (!st.service->ready()) {
      st.was_ready = false;
      st.log.note(st.options.link, "declarations", std::string{"paused: the service is not ready"});
    } else if (!st.was_ready || now >= st.next_due) {
      st.was_ready = true;
      st.next_due = now + st.options.interval;
      auto body = boost::json::serialize(st.service->declaration());
      auto outcome = post_to_catalog(st.options.link, "/discovery/declarations", std::move(body));
      st.log.note(st.options.link, "declarations", outcome);
      if (outcome && !st.pruned) {
        auto pruned = prune(st.options.link, *st.service, st.served);
        st.pruned = pruned.has_value();
        st.prune_log.note(st.options.link, "routes no longer served", pruned);
      }
    }
    self->delayed_send(self, st.options.readiness_poll, atom::beat::value);
  }};
}

struct reporter_state {
  static inline const char* name = "z402.kit.settle_reporter";
  catalog_link_options link;
  outcome_log log;
};

settle_reporter_actor::behavior_type settle_reporter(settle_reporter_actor::stateful_pointer<reporter_state> self,
                                                     catalog_link_options link) {
  self->state.link = std::move(link);
  return {[=](atom::report, std::string& body) {
    self->state.log.note(self->state.link, "settle reports", post_to_catalog(self->state.link, "/discovery/settled", std::move(body)));
  }};
}

}  // namespace

expected<std::string> post_to_catalog(const catalog_link_options& link, std::string_view path, std::string body,
                                      http::bhttp::verb method) {
  http::client_request req;
  req.method = method;
  req.url = http::endpoint_url(link.discovery_url, path);
  req.headers = {{"Authorization", "Bearer " + link.key}, {"Content-Type", "application/json"}};
  req.body = std::move(body);
  auto result = call_catalog(link, req, answer_budget);
  if (!result) return result.error();
  auto& res = *result;
  if (res.result_int() != 200) return refusal(res, link.key);
  // A settle report is answered 200 either way; its bazaar status says whether it counted.
  auto answer = wire::parse_strict(res.body(), 16);
  auto bazaar = answer && answer->is_object() ? answer->get_object().if_contains("bazaar") : nullptr;
  if (bazaar && bazaar->is_object()) {
    auto status = wire::find_string(bazaar->get_object(), "status");
    if (status && *status == "rejected") {
      auto reason = wire::find_string(bazaar->get_object(), "rejectedReason");
      return error{errc::invalid_request, "",
                   "not counted by the catalog: " + printable(reason ? std::string{*reason} : "no reason given", link.key)};
    }
  }
  return std::string{"accepted by the catalog"};
}

heartbeat_actor spawn_heartbeat(caf::actor_system& sys, heartbeat_options options, std::shared_ptr<const paid_service> service) {
  if (options.interval.count() <= 0) return {};
  return spawn_detached(sys, heartbeat, std::move(options), std::move(service));
}

settle_reporter_actor spawn_settle_reporter(caf::actor_system& sys, catalog_link_options options) {
  return spawn_detached(sys, settle_reporter, std::move(options));
}

}  // namespace z402::kit
