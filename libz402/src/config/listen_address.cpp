#include "z402/config/listen_address.hpp"

#include <boost/asio/ip/address.hpp>

#include <charconv>

namespace z402::config {

expected<listen_address> parse_listen_address(std::string_view text, bool any_port) {
  auto colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return refused("listen", "listen must be HOST:PORT");
  auto port_text = text.substr(colon + 1);
  unsigned port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  unsigned lowest = any_port ? 0 : 1;
  if (ec != std::errc{} || end != port_text.data() + port_text.size() || port < lowest || port > 65535)
    return refused("listen", "listen must end in a port from " + std::to_string(lowest) + " to 65535");
  auto host = text.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  return listen_address{std::string{host}, static_cast<std::uint16_t>(port)};
}

std::string to_string(const listen_address& where) {
  // A host with a colon in it can only be an IPv6 address: names and IPv4 addresses have none.
  bool v6 = where.host.find(':') != std::string::npos;
  return (v6 ? "[" + where.host + "]" : where.host) + ":" + std::to_string(where.port);
}

bool is_loopback(std::string_view host) {
  boost::system::error_code ec;
  auto address = boost::asio::ip::make_address(host, ec);
  return !ec && address.is_loopback();
}

}  // namespace z402::config
