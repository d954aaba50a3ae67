#pragma once
// The routes of z402-bazaar and what each answers. Reads run on the io threads against the
// current snapshot; declarations are parsed and checked on the checks thread (app_state::checks),
// then cross to the PROVIDER actor; settles cross to SETTLE in batches (settle_batcher).
#include "z402/auth/keyring.hpp"
#include "catalog/declaration_checker.hpp"
#include "z402/catalog/engine.hpp"
#include "z402/config/rail_terms.hpp"
#include "http/byte_budget.hpp"
#include "z402/http/handler.hpp"
#include "http/gzip_cache.hpp"
#include "http/page_file.hpp"
#include "http/search_query.hpp"
#include "z402/http/server_metrics.hpp"
#include "http/settle_batcher.hpp"
#include "z402/mcp/protocol.hpp"
#include "rules/rule_family.hpp"
#include "z402/telemetry/metrics.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/beast/http.hpp>
#include <boost/json/value.hpp>

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <variant>

namespace z402::http {

/// Declarations by outcome, for /metrics.
struct declaration_metrics {
  telemetry::counter accepted;     // 200, heartbeats included
  telemetry::counter unavailable;  // 503: overloaded or the catalog is stopping
  std::array<telemetry::counter, rules::rule_families.size()> refused;  // 400, by rule family
};

/// What the handlers share.
struct app_state {
  /// The rail's terms and allowHttpResources are the engine's (engine.context()): one copy.
  /// `declaration_bytes_in_flight`: config::bazaar_config's, the capacity of declaration_bytes.
  app_state(catalog::engine& e, auth::key_store& k, std::string cursor_key, settle_batcher& s,
            boost::asio::any_io_executor checks_on, std::size_t declaration_bytes_in_flight);

  catalog::engine& engine;
  auth::key_store& keys;
  std::string terms_json, terms_etag;  // GET /discovery/terms: made once (the terms change only with a restart)
  cursor_signer cursors;  // search cursors, signed with a key made at start
  settle_batcher& settles;
  /// Where declarations are parsed and checked: up to 17 MiB of JSON and a schema per item
  /// take milliseconds, which on the io thread every read would wait behind.
  boost::asio::any_io_executor checks;
  /// Used only on `checks`: an item declared as it was last time is not checked again.
  catalog::declaration_checker checker;
  std::size_t max_writes_in_flight = 1024;  // declarations: CAF mailboxes are unbounded, refuse above this
  std::atomic<std::size_t> writes_in_flight{0};
  std::size_t read_body_limit = 4u << 10;          // GET bodies are not used
  std::size_t declaration_body_limit = 17u << 20;  // 128 items of up to 128 KiB, plus framing
  std::size_t settlement_body_limit = 256u << 10;  // one payment with its echoed bazaar extension
  /// The bytes of declaration bodies held at once, from their read until their checks are done
  /// (byte_budget.hpp): the write slots bound how many, this how large they are together.
  byte_budget declaration_bytes;
  /// GET /metrics: off, the route answers 404. The front end counts into `http_metrics`.
  bool metrics_enabled = true;
  const server_metrics* http_metrics = nullptr;
  declaration_metrics declarations;
  gzip_cache gzip{gzip_cache_budget};    // compressed catalog pages, shared by the io threads
  page_files pages{page_files_budget};  // plain catalog pages in files, for sendfile
  std::string_view scheme = "http";  // "https" when the server speaks TLS: its own origin, for MCP's Origin check
  /// More than one node: "primary" (it publishes a FEED), "follower" (engine.follower())
  /// or "standalone"; /health says it.
  std::string_view role = "standalone";
};

enum class route { health, resources, search, resource, terms, declarations, settled, mcp, metrics, web, not_found };

/// The metrics label of each route, in the order of `route`.
inline constexpr std::string_view route_names[] = {"health",       "resources", "search", "resource", "terms",
                                                   "declarations", "settled",   "mcp",    "metrics",  "web",
                                                   "not_found"};

route route_of(std::string_view path);

/// Methods a route answers, for 405 and Allow.
std::string_view allowed_methods(route r);

/// Checks the request line and headers before any body is read: unknown path, wrong method,
/// Authorization on reads (valid key or 401), on declarations (a provider key) and on
/// settlements (a settle key; 403 for a provider key). Returns the response to send at once,
/// or nothing (and the caller proceeds). `writer` gets the provider of a declaration.
std::optional<response> screen(app_state& app, const request_header& req, route r,
                               std::optional<auth::provider_record>& writer);

/// GET /health, /metrics, /discovery/resources, /discovery/search and /discovery/resource.
response handle_read(app_state& app, const request& req, route r);

/// POST /discovery/declarations; `reply` runs once, on the engine's thread or this one.
/// `body_bytes` is the body's room in app_state::declaration_bytes, given back with the body.
void handle_declaration(app_state& app, request& req, const auth::provider_record& provider, byte_budget::held body_bytes,
                        std::function<void(response)> reply);

/// DELETE /discovery/declarations: the provider removes its own items; 200 {"removed":N}.
void handle_delisting(app_state& app, const request& req, const auth::provider_record& provider,
                      std::function<void(response)> reply);

/// POST /discovery/settled: 200 with the catalog outcome in the body and in EXTENSION-RESPONSES;
/// 400 only when the body names no payee or resource. `reply` runs once.
void handle_settlement(app_state& app, const request& req, std::function<void(response)> reply);

/// The routes above, served by http::server.
class bazaar_handler final : public handler {
 public:
  explicit bazaar_handler(app_state& app);
  std::size_t max_body_limit() const override;
  header_verdict on_header(const request_header& req) override;
  std::optional<response> on_request(request& req, std::any& context, const responder& reply) override;
  std::span<const std::string_view> route_names() const override { return http::route_names; }
  std::size_t route_index(std::string_view path) const override { return static_cast<std::size_t>(route_of(path)); }

 private:
  /// What on_header decided, for on_request (header_verdict::context).
  struct request_context {
    route r;
    std::optional<auth::provider_record> writer;  // declarations and delistings: the authenticated provider
    /// A declaration's or delisting's body: its bytes in app_state::declaration_bytes, filled
    /// when the budget lets the body in (before it is read), held as long as the body is.
    std::shared_ptr<byte_budget::held> body_bytes;
  };
  app_state& app_;
  mcp::server mcp_;  // POST /discovery/mcp
};

}  // namespace z402::http
