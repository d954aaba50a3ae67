#pragma once
// Where a server listens, as its command line and config file write it: "HOST:PORT", with an
// IPv6 host in brackets ("[::1]:3000"). One reader for every program.
#include "z402/error.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace z402::config {

struct listen_address {
  std::string host;  // without brackets
  std::uint16_t port = 0;
};

/// Reads "HOST:PORT". Port 0 (any free port) only where `any_port`: the catalog server allows it
/// (tests, then it logs the port it got); a service that declares its own URL needs a real one.
/// invalid_request with field `listen` otherwise.
expected<listen_address> parse_listen_address(std::string_view text, bool any_port);

/// "HOST:PORT" as `parse_listen_address` reads it back: an IPv6 host in brackets ("[::1]:3000"),
/// so a log line or an error names an address one can paste, and a URL built on it is one.
std::string to_string(const listen_address& where);

/// Whether `host` is a loopback address (127.0.0.0/8, ::1), read as an address: a name is never
/// loopback here, since what it resolves to is not ours to vouch for ("127.example.com").
bool is_loopback(std::string_view host);

}  // namespace z402::config
