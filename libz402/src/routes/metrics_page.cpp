#include "routes/metrics_page.hpp"

#include "z402/version.hpp"

#include <boost/version.hpp>
#include <caf/config.hpp>
#include <openssl/opensslv.h>

namespace z402::routes {
namespace {

double seconds_of(std::int64_t ms) { return static_cast<double>(ms) / 1000.0; }

void catalog_metrics(const bazaar_routes& app, telemetry::prometheus_text& out) {
  auto snap = app.engine.snapshots().load();
  out.family("z402_catalog_items", "gauge", "Items in the published catalog.");
  out.sample("z402_catalog_items", {}, static_cast<std::uint64_t>(snap->items.size()));
  out.family("z402_catalog_bytes", "gauge", "Serialised size of the published catalog's items.");
  out.sample("z402_catalog_bytes", {}, static_cast<std::uint64_t>(snap->bytes));
  out.family("z402_catalog_providers_listed", "gauge", "Providers with at least one item listed.");
  out.sample("z402_catalog_providers_listed", {}, static_cast<std::uint64_t>(snap->providers));
  out.family("z402_providers", "gauge", "Providers registered (with a key).");
  out.sample("z402_providers", {}, static_cast<std::uint64_t>(app.keys.current()->providers.size()));
  out.family("z402_snapshot_version", "gauge", "Version of the published snapshot (a publication adds one).");
  out.sample("z402_snapshot_version", {}, snap->version);
  out.family("z402_snapshot_published_timestamp_seconds", "gauge", "When the published snapshot was made, Unix time.");
  out.sample("z402_snapshot_published_timestamp_seconds", {}, seconds_of(snap->published_ms));

  auto& d = app.declarations.metrics();
  out.family("z402_declarations_total", "counter", "Declarations answered, by outcome (refused: by rule family).");
  out.sample("z402_declarations_total", {{"outcome", "accepted"}, {"family", ""}}, d.accepted.value());
  out.sample("z402_declarations_total", {{"outcome", "unavailable"}, {"family", ""}}, d.unavailable.value());
  for (std::size_t f = 0; f < rules::rule_families.size(); ++f)
    out.sample("z402_declarations_total", {{"outcome", "refused"}, {"family", rules::rule_families[f]}}, d.refused[f].value());
  out.family("z402_declaration_body_bytes", "gauge",
             "Bytes of declaration bodies held now, from their read until their checks are done.");
  out.sample("z402_declaration_body_bytes", {}, static_cast<std::uint64_t>(app.declarations.body_budget().held_bytes()));
  out.family("z402_declaration_body_bytes_limit", "gauge", "At most this many bytes of declaration bodies are held at once.");
  out.sample("z402_declaration_body_bytes_limit", {}, static_cast<std::uint64_t>(app.declarations.body_budget().capacity()));
  out.family("z402_declaration_bodies_waiting", "gauge", "Declaration bodies waiting now, unread, for the bytes held to make room.");
  out.sample("z402_declaration_bodies_waiting", {}, static_cast<std::uint64_t>(app.declarations.body_budget().waiting()));
  out.family("z402_declaration_body_waits_total", "counter",
             "Declaration bodies that waited to be read until the bytes held made room for them.");
  out.sample("z402_declaration_body_waits_total", {}, app.declarations.body_budget().waited());

  auto& stats = *app.engine.context().stats;
  out.family("z402_settles_total", "counter",
             "Settle events, counted, repeated (a payment reported again: answered as first, not counted) or rejected (by reason).");
  out.sample("z402_settles_total", {{"outcome", "counted"}, {"reason", ""}},
             stats.settles_counted.load(std::memory_order_relaxed));
  out.sample("z402_settles_total", {{"outcome", "repeated"}, {"reason", ""}},
             stats.settles_repeated.load(std::memory_order_relaxed));
  for (std::size_t r = 0; r < catalog::settle_rejection_count; ++r)
    out.sample("z402_settles_total",
               {{"outcome", "rejected"}, {"reason", catalog::to_string(static_cast<catalog::settle_rejection>(r))}},
               stats.settles_rejected_by[r].load(std::memory_order_relaxed));

  out.family("z402_persistence_last_success_timestamp_seconds", "gauge",
             "When the catalog file was last written successfully, Unix time (0: not yet in this run).");
  out.sample("z402_persistence_last_success_timestamp_seconds", {}, seconds_of(stats.last_saved_ms.load(std::memory_order_relaxed)));
  out.family("z402_persistence_failing_since_timestamp_seconds", "gauge",
             "Since when catalog file writes fail, Unix time (0: the last write succeeded).");
  out.sample("z402_persistence_failing_since_timestamp_seconds", {},
             seconds_of(stats.save_failing_since_ms.load(std::memory_order_relaxed)));
  out.family("z402_persistence_failures_total", "counter", "Catalog file writes that failed.");
  out.sample("z402_persistence_failures_total", {}, stats.save_failures.load(std::memory_order_relaxed));
}

}  // namespace

http::response metrics_response(const bazaar_routes& app) {
  telemetry::prometheus_text out;
  out.family("z402_build_info", "gauge", "The build: z402's version and the libraries it was built with.");
  out.sample("z402_build_info",
             {{"version", z402::version()}, {"caf", std::to_string(CAF_VERSION)}, {"boost", BOOST_LIB_VERSION},
              {"openssl", OPENSSL_VERSION_STR}},
             std::uint64_t{1});
  catalog_metrics(app, out);
  out.family("z402_gzip_pages_total", "counter",
             "gzip'd catalog pages served, by whether they were compressed for this answer, came from the cache, or took "
             "the bytes compressed for an earlier version's page of the same content.");
  out.sample("z402_gzip_pages_total", {{"source", "compressed"}}, app.reads.gzip.made.value());
  out.sample("z402_gzip_pages_total", {{"source", "cache"}}, app.reads.gzip.hits.value());
  out.sample("z402_gzip_pages_total", {{"source", "earlier_version"}}, app.reads.gzip.reused.value());
  out.family("z402_gzip_deferred_total", "counter",
             "Pages asked for gzip and answered uncompressed because another reader was compressing the same page.");
  out.sample("z402_gzip_deferred_total", {}, app.reads.gzip.deferred.value());
  out.family("z402_page_files_total", "counter",
             "Plain catalog pages sent from a file with sendfile, by whether the file was written for this answer, came "
             "from the cache, or was written for an earlier version's page of the same content.");
  out.sample("z402_page_files_total", {{"source", "written"}}, app.reads.pages.made.value());
  out.sample("z402_page_files_total", {{"source", "cache"}}, app.reads.pages.hits.value());
  out.sample("z402_page_files_total", {{"source", "earlier_version"}}, app.reads.pages.reused.value());
  out.family("z402_mcp_results_total", "counter",
             "tools/call results of /discovery/mcp answered, by whether they were made for this answer, came from the "
             "cache (kept per snapshot version and arguments), or answered a message that repeats one but for its id.");
  out.sample("z402_mcp_results_total", {{"source", "made"}}, app.reads.mcp_results.made.value());
  out.sample("z402_mcp_results_total", {{"source", "cache"}}, app.reads.mcp_results.hits.value());
  out.sample("z402_mcp_results_total", {{"source", "repeat"}}, app.reads.mcp_repeats.value());
  out.family("z402_page_cache_bytes", "gauge", "Bytes of the pages a read cache holds, within its budget.");
  out.sample("z402_page_cache_bytes", {{"cache", "gzip"}}, static_cast<std::uint64_t>(app.reads.gzip.held_bytes()));
  out.sample("z402_page_cache_bytes", {{"cache", "file"}}, static_cast<std::uint64_t>(app.reads.pages.held_bytes()));
  out.sample("z402_page_cache_bytes", {{"cache", "mcp"}}, static_cast<std::uint64_t>(app.reads.mcp_results.held_bytes()));
  out.family("z402_page_cache_full_total", "counter",
             "Pages answered as rendered (not compressed, not from a file) because the cache's budget was spent.");
  out.sample("z402_page_cache_full_total", {{"cache", "gzip"}}, app.reads.gzip.over_budget.value());
  out.sample("z402_page_cache_full_total", {{"cache", "file"}}, app.reads.pages.over_budget.value());
  out.sample("z402_page_cache_full_total", {{"cache", "mcp"}}, app.reads.mcp_results.over_budget.value());
  if (app.metrics.http) app.metrics.http->render(out);
  auto res = http::json_response(200, out.text());
  res.set(http::bhttp::field::content_type, telemetry::prometheus_text::content_type);
  res.set(http::bhttp::field::cache_control, "no-store");
  return res;
}

}  // namespace z402::routes
