#pragma once
// Which addresses a client that must reach only the public internet may connect to. The agent
// reads a provider's origin on a catalog's word: a listing naming a loopback, private or
// link-local address would make the agent probe its own machine or network (SSRF).
#include <boost/asio/ip/address.hpp>

namespace z402::http {

/// False for unspecified, loopback, private (RFC 1918, RFC 4193), shared (RFC 6598),
/// link-local, multicast, broadcast, benchmarking (RFC 2544), documentation, IETF-reserved
/// and 240/4 addresses, and for IPv6 addresses that embed an IPv4 one failing the same test.
bool is_public_address(const boost::asio::ip::address& address);

}  // namespace z402::http
