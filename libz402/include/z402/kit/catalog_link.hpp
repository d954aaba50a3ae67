#pragma once
// The service's two calls to the catalog, each made by its own detached actor so a slow or
// absent catalog never holds up the service: the declaration heartbeat and the settle
// reporter. Both log one line each time the outcome changes, never the key.
#include "z402/http/message.hpp"
#include "z402/kit/paid_service.hpp"
#include "z402/telemetry/log.hpp"

#include <caf/actor_system.hpp>
#include <caf/atom.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>

namespace z402::kit {

namespace atom {
using beat = caf::atom_constant<caf::atom("beat")>;
using report = caf::atom_constant<caf::atom("report")>;
}  // namespace atom

/// HEARTBEAT: declares the service's routes while it is ready.
using heartbeat_actor = caf::typed_actor<
    /// itself: look at readiness; declare when due.
    caf::reacts_to<atom::beat>>;

/// REPORTER: tells the catalog about each settle of the service.
using settle_reporter_actor = caf::typed_actor<
    /// the service: (body) a settle event to send to POST /discovery/settled.
    caf::reacts_to<atom::report, std::string>>;

struct catalog_link_options {
  std::string discovery_url;  // the catalog's base URL; its path is kept as a prefix
  std::string key;            // provider key (heartbeat) or settle key (reporter)
  std::chrono::milliseconds timeout{10'000};  // per call
  bool verify_tls = true;
  telemetry::logger log;  // one record per change of outcome; no sink: silent
};

struct heartbeat_options {
  catalog_link_options link;
  std::chrono::milliseconds interval{30'000};  // 0 turns declaring off
  std::chrono::milliseconds readiness_poll{250};  // how soon becoming ready is noticed
};

/// Declares at once when the service is ready, then every interval while it stays ready.
/// After its first accepted declaration it removes (DELETE /discovery/declarations) the
/// catalog's items of its payTo under its own origin that none of its routes is any more: a
/// route taken out of a service leaves the catalog at the next beat after a restart. Items
/// under other origins (other services of the same provider) are never touched.
/// Returns an invalid handle (and spawns nothing) when the interval is 0.
heartbeat_actor spawn_heartbeat(caf::actor_system& sys, heartbeat_options options, std::shared_ptr<const paid_service> service);

/// Sends each (report, body) to POST /discovery/settled; an event that cannot be sent is
/// logged (on change) and dropped: the call was delivered, the catalog only counts.
settle_reporter_actor spawn_settle_reporter(caf::actor_system& sys, catalog_link_options options);

/// One call: POST (or `method`) `body` to the catalog's `path` with the key. What the catalog
/// answered, or why it did not take it (unavailable: not reached; a refusal: the catalog's own
/// code; invalid_request: a settle answered but not counted), as one printable line that never
/// contains the key.
expected<std::string> post_to_catalog(const catalog_link_options& link, std::string_view path, std::string body,
                                      http::bhttp::verb method = http::bhttp::verb::post);

}  // namespace z402::kit
