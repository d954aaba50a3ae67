#pragma once
// Where the catalog's actors meet CAF's middleman (libcaf_io, BASP): the primary
// publishes its FEED, a follower reaches it. The actor system decides how: one that loaded
// CAF's OpenSSL module (cluster_credentials::configure) links by mutual TLS under the cluster
// CA, on any address; one with the middleman alone (`cfg.load<caf::io::middleman>()`) speaks
// plain BASP, which has no encryption or authentication and so is accepted on loopback only
// (tests and development); other addresses are refused here.
#include "z402/catalog/actors.hpp"
#include "z402/config/listen_address.hpp"
#include "z402/error.hpp"

#include <caf/actor_system.hpp>
#include <caf/io/middleman.hpp>
#include <caf/openssl/manager.hpp>

#include <chrono>
#include <cstdint>

namespace z402::catalog {

/// Whether the links of `sys` are mutual TLS.
inline bool links_are_tls(const caf::actor_system& sys) { return sys.has_openssl_manager(); }

/// Publishes `feed` at `where` (port 0: any free port); the port it got, or invalid_request
/// (field: the address) when links are plain and it is not loopback, or unavailable when it
/// cannot listen.
expected<std::uint16_t> publish_feed(caf::actor_system& sys, const feed_remote_actor& feed, const config::listen_address& where);

/// Asks the middleman for the primary's FEED at `where` without blocking: `done` gets it, or why
/// not (plain and not loopback, refused, a handshake either end refused, a different
/// interface, no answer within `timeout`), on `self`.
template <class Self, class Done>
void reach_feed(Self* self, const config::listen_address& where, std::chrono::milliseconds timeout, Done done);

template <class Self, class Done>
void reach_feed(Self* self, const config::listen_address& where, std::chrono::milliseconds timeout, Done done) {
  caf::actor_system& sys = self->system();
  bool tls = links_are_tls(sys);
  if (!tls && !config::is_loopback(where.host))
    return done(expected<feed_remote_actor>{
        error{errc::invalid_request, "--follow", "plain cluster links are accepted on loopback only; " + where.host + " is not loopback"}});
  auto middleman = tls ? sys.openssl_manager().actor_handle() : sys.middleman().actor_handle();
  self->request(middleman, timeout, caf::connect_atom::value, where.host, where.port)
      .then(
          [=, &sys](const caf::node_id&, caf::strong_actor_ptr& ptr, const std::set<std::string>& interface) mutable {
            // The published actor must be a FEED: the same typed interface, or nothing.
            if (!ptr || !sys.assignable(interface, sys.message_types<feed_remote_actor>()))
              return done(expected<feed_remote_actor>{error{errc::unavailable, "--follow", "what listens there is not a catalog feed"}});
            done(expected<feed_remote_actor>{caf::actor_cast<feed_remote_actor>(std::move(ptr))});
          },
          [=, &sys](caf::error& err) mutable { done(expected<feed_remote_actor>{error{errc::unavailable, "--follow", sys.render(err)}}); });
}

}  // namespace z402::catalog
