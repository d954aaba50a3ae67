#include "catalog/cluster_link.hpp"

#include <caf/io/middleman.hpp>
#include <caf/openssl/publish.hpp>

namespace z402::catalog {

expected<std::uint16_t> publish_feed(caf::actor_system& sys, const feed_remote_actor& feed, const config::listen_address& where) {
  bool tls = links_are_tls(sys);
  if (!tls && !config::is_loopback(where.host))
    return error{errc::invalid_request, "--cluster-listen",
                 "plain cluster links are accepted on loopback only; " + where.host + " is not loopback"};
  auto port = tls ? caf::openssl::publish(feed, where.port, where.host.c_str(), true)
                  : sys.middleman().publish(feed, where.port, where.host.c_str(), true);
  if (!port) return error{errc::unavailable, "--cluster-listen", "cannot listen on " + config::to_string(where) +
                                                                     ": " + sys.render(port.error())};
  return *port;
}

}  // namespace z402::catalog
