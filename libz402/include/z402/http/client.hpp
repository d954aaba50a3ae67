#pragma once
// An HTTP(S) client for talking to servers we do not trust: one request at a time, a hard
// deadline for everything (resolve, connect, TLS, write, read), and a byte budget counted as
// bytes arrive, so a slow drip or an endless body ends on time and within memory. TLS verifies
// the peer against the system trust store unless told not to. Redirects are the caller's call.
#include "z402/error.hpp"
#include "z402/http/message.hpp"

#include <boost/asio/ssl/context.hpp>

#include <chrono>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace z402::http {

struct client_request {
  bhttp::verb method = bhttp::verb::get;
  std::string url;  // absolute http:// or https://
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  /// Connect only to public addresses (http/public_address.hpp): a name that resolves to none
  /// is refused (errc::forbidden) before any connection is made.
  bool public_addresses_only = false;
};

/// A catalog's base URL joined with one of its endpoints ("/discovery/resources"): the base's
/// path is kept as a prefix (docs/wire.md §1), its trailing slashes dropped.
std::string endpoint_url(std::string_view base, std::string_view path);

/// An answer as received (the server side's response type gathers; this one owns its body).
using client_response = bhttp::response<bhttp::string_body>;
/// The answer, or why there is none: errc::timed_out (the deadline passed), body_too_large (the
/// byte budget ran out), invalid_request (field "url": the URL is not usable), forbidden (the
/// name resolves to no public address, when only those are wanted) or unavailable
/// (no name, no connection, no TLS, not HTTP). The reason says which step failed and never
/// repeats a header value.
using fetch_result = expected<client_response>;

class client {
 public:
  /// `verify_tls` false accepts any certificate (local testing only).
  explicit client(bool verify_tls = true);

  /// Sends `req` and reads the whole answer. `budget` is what is left for all requests of
  /// the caller together; every byte received (headers and body) is taken from it.
  fetch_result fetch(const client_request& req, std::chrono::steady_clock::time_point deadline, std::size_t& budget);

 private:
  boost::asio::ssl::context tls_;
  bool verify_tls_;
};

}  // namespace z402::http
