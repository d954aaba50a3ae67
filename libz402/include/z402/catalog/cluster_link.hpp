#pragma once
// Where the catalog's actors meet CAF's middleman (libcaf_io, BASP; issue 16): the primary
// publishes its FEED, a follower reaches it. The actor system must have loaded the middleman
// (`cfg.load<caf::io::middleman>()`). Plain BASP has no encryption or authentication, so it is
// accepted on loopback only (tests and development); other addresses are refused here.
#include "z402/catalog/actors.hpp"
#include "z402/config/listen_address.hpp"
#include "z402/error.hpp"

#include <caf/actor_system.hpp>
#include <caf/io/middleman.hpp>

#include <chrono>
#include <cstdint>

namespace z402::catalog {

/// Publishes `feed` at `where` (port 0: any free port); the port it got, or invalid_request
/// (field: the address) when it is not loopback, or unavailable when it cannot listen.
expected<std::uint16_t> publish_feed(caf::actor_system& sys, const feed_remote_actor& feed, const config::listen_address& where);

/// Asks the middleman for the primary's FEED at `where` without blocking: `done` gets it, or why
/// not (not loopback, refused, a different interface, no answer within `timeout`), on `self`.
template <class Self, class Done>
void reach_feed(Self* self, const config::listen_address& where, std::chrono::milliseconds timeout, Done done);

template <class Self, class Done>
void reach_feed(Self* self, const config::listen_address& where, std::chrono::milliseconds timeout, Done done) {
  if (!config::is_loopback(where.host))
    return done(expected<feed_remote_actor>{
        error{errc::invalid_request, "--follow", "plain cluster links are accepted on loopback only; " + where.host + " is not loopback"}});
  caf::actor_system& sys = self->system();
  self->request(sys.middleman().actor_handle(), timeout, caf::connect_atom::value, where.host, where.port)
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
