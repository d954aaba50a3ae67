#pragma once
// The routes of z402-bazaar and what each answers, above the HTTP transport (http::server).
// Reads run on the io threads against the current snapshot; declarations walk through the
// declaration_desk (the rules on its checks thread, then the PROVIDER actor); settles cross to
// SETTLE in batches (settle_batcher).
#include "z402/auth/keyring.hpp"
#include "z402/catalog/engine.hpp"
#include "z402/config/rail_terms.hpp"
#include "z402/http/handler.hpp"
#include "z402/http/server_metrics.hpp"
#include "z402/mcp/protocol.hpp"
#include "routes/declaration_desk.hpp"
#include "routes/gzip_cache.hpp"
#include "routes/mcp_results.hpp"
#include "routes/page_files.hpp"
#include "routes/route.hpp"
#include "routes/search_query.hpp"
#include "routes/settle_batcher.hpp"

#include <boost/asio/any_io_executor.hpp>

#include <optional>
#include <string>

namespace z402::routes {

/// Who this node is, as /health and MCP's Origin check say it.
struct node_identity {
  /// "primary" (it publishes a FEED), "follower" (engine::follower()) or "standalone".
  std::string_view role = "standalone";
  /// "https" when the server speaks TLS: its own origin, for MCP's Origin check.
  std::string_view scheme = "http";
};

/// What the read routes keep between requests, shared by the io threads.
struct read_state {
  read_state(const config::rail_terms& terms, std::string cursor_key);
  std::string terms_json, terms_etag;  // GET /discovery/terms: made once (the terms change only with a restart)
  cursor_signer cursors;                // search cursors, signed with a key made at start
  gzip_cache gzip{gzip_cache_budget};   // compressed catalog pages
  page_files pages{page_files_budget};  // plain catalog pages in files, for sendfile
  mcp_result_cache mcp_results{mcp_result_cache_budget};  // tools/call results of /discovery/mcp
  telemetry::counter mcp_repeats;  // tools/call messages answered again from memory (mcp_repeats.hpp)
};

/// GET /metrics: off, the route answers 404. The transport counts into `http`.
struct metrics_exposure {
  bool enabled = true;
  const http::server_metrics* http = nullptr;
};

/// Everything the routes use, in the pieces each route takes what it needs from.
struct bazaar_routes {
  /// The rail's terms and allowHttpResources are the engine's (engine.context()): one copy.
  /// `declaration_bytes_in_flight`: config::bazaar_config's (declaration_desk::body_budget).
  bazaar_routes(catalog::engine& e, auth::key_store& k, std::string cursor_key, settle_batcher& s,
                boost::asio::any_io_executor checks, std::size_t declaration_bytes_in_flight);

  catalog::engine& engine;
  auth::key_store& keys;
  node_identity node;
  read_state reads;
  declaration_desk declarations;  // POST and DELETE /discovery/declarations
  settle_batcher& settles;        // POST /discovery/settled
  metrics_exposure metrics;

  static constexpr std::size_t read_body_limit = 4u << 10;          // GET bodies are not used
  static constexpr std::size_t settlement_body_limit = 256u << 10;  // one payment with its echoed bazaar extension
};

/// Checks the request line and headers before any body is read: unknown path, wrong method,
/// Authorization on reads (valid key or 401), on declarations (a provider key) and on
/// settlements (a settle key; 403 for a provider key). Returns the response to send at once,
/// or nothing (and the caller proceeds). `writer` gets the provider of a declaration.
std::optional<http::response> screen(const bazaar_routes& routes, const http::request_header& req, route r,
                                     std::optional<auth::provider_record>& writer);

/// GET /health, /metrics, /discovery/terms, /discovery/resources, /discovery/search,
/// /discovery/resource and the Services page.
http::response handle_read(bazaar_routes& routes, const http::request& req, route r);

/// POST /discovery/settled: 200 with the catalog outcome in the body and in EXTENSION-RESPONSES;
/// 400 only when the body names no payee or resource. `reply` runs once.
void handle_settlement(bazaar_routes& routes, const http::request& req, std::function<void(http::response)> reply);

/// The routes above, served by http::server.
class bazaar_handler final : public http::handler {
 public:
  explicit bazaar_handler(bazaar_routes& routes);
  std::size_t max_body_limit() const override;
  http::header_verdict on_header(const http::request_header& req) override;
  std::optional<http::response> on_request(http::request& req, std::any& context, const http::responder& reply) override;
  std::span<const std::string_view> route_names() const override { return routes::route_names; }
  std::size_t route_index(std::string_view path) const override { return static_cast<std::size_t>(route_of(path)); }

 private:
  /// What on_header decided, for on_request (header_verdict::context).
  struct request_context {
    route r;
    std::optional<auth::provider_record> writer;  // declarations and delistings: the authenticated provider
    /// A declaration's or delisting's body: its bytes in the desk's body budget, filled when
    /// the budget lets the body in (before it is read), held as long as the body is.
    std::shared_ptr<http::byte_budget::held> body_bytes;
  };
  bazaar_routes& routes_;
  mcp::server mcp_;  // POST /discovery/mcp
};

}  // namespace z402::routes
