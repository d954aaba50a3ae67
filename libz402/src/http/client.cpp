#include "z402/http/client.hpp"

#include "http/public_address.hpp"
#include "wire/url.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>

#include <openssl/ssl.h>

#include <optional>

namespace z402::http {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
using tcp = net::ip::tcp;
using net::use_awaitable;

constexpr std::size_t max_header_bytes = 64u << 10;
constexpr std::size_t read_chunk = 16u << 10;

error unreachable(std::string reason) { return {errc::unavailable, "", std::move(reason)}; }

struct target {
  bool tls = false;
  std::string host;  // without IPv6 brackets
  std::string port;
  std::string path_and_query;
  std::string host_header;
};

expected<target> target_of(const std::string& url) {
  auto parts = wire::parse_absolute_url(url);
  if (!parts) return parts.error();
  if (parts->scheme != "http" && parts->scheme != "https")
    return refused("url", "the URL must be http or https");
  target t;
  t.tls = parts->scheme == "https";
  t.host = parts->host;
  if (t.host.size() > 1 && t.host.front() == '[') t.host = t.host.substr(1, t.host.size() - 2);
  t.port = parts->port.empty() ? (t.tls ? "443" : "80") : parts->port;
  t.path_and_query = parts->path.empty() ? "/" : parts->path;
  if (!parts->query.empty()) t.path_and_query += "?" + parts->query;
  t.host_header = parts->host + (parts->port.empty() ? "" : ":" + parts->port);
  return t;
}

/// Why a stream error ended the exchange, for one line of output.
error failure_of(const beast::error_code& ec, std::string_view step) {
  if (ec == beast::error::timeout) return {errc::timed_out, "", "the deadline passed while " + std::string{step}};
  return unreachable(std::string{step} + " failed: " + ec.message());
}

/// One exchange over a connected stream: write, then read counting every byte received.
template <class Stream>
net::awaitable<fetch_result> exchange(Stream& stream, const request& req, std::size_t& budget) {
  beast::error_code ec;
  co_await bhttp::async_write(stream, req, net::redirect_error(use_awaitable, ec));
  if (ec) co_return failure_of(ec, "sending the request");
  bhttp::response_parser<bhttp::string_body> parser;
  parser.header_limit(static_cast<std::uint32_t>(max_header_bytes));
  parser.body_limit(boost::none);  // the budget bounds it
  parser.eager(true);
  beast::flat_buffer buffer;
  while (!parser.is_done()) {
    if (budget == 0) co_return error{errc::body_too_large, "", "the byte budget ran out while reading the answer"};
    auto n = co_await stream.async_read_some(buffer.prepare(std::min(budget, read_chunk)),
                                             net::redirect_error(use_awaitable, ec));
    budget -= n;
    buffer.commit(n);
    if (ec == net::error::eof || ec == net::ssl::error::stream_truncated) {
      parser.put_eof(ec);
      if (ec) co_return unreachable("the connection closed before the answer was complete");
      break;
    }
    if (ec) co_return failure_of(ec, "reading the answer");
    while (buffer.size() > 0 && !parser.is_done()) {
      auto used = parser.put(buffer.data(), ec);
      buffer.consume(used);
      if (ec == bhttp::error::need_more) {
        ec = {};
        break;
      }
      if (ec == bhttp::error::header_limit)
        co_return unreachable("the answer's headers are larger than 64 KiB");
      if (ec) co_return unreachable("the answer is not valid HTTP: " + ec.message());
    }
  }
  co_return parser.release();
}

/// The addresses `t` may be reached at: all of them, or only the public ones.
expected<std::vector<tcp::endpoint>> reachable(const tcp::resolver::results_type& resolved, const target& t, bool public_only) {
  std::vector<tcp::endpoint> out;
  for (auto& entry : resolved)
    if (!public_only || is_public_address(entry.endpoint().address())) out.push_back(entry.endpoint());
  if (out.empty())
    return error{errc::forbidden, "url", t.host + " resolves only to loopback, private or reserved addresses"};
  return out;
}

net::awaitable<fetch_result> run(net::ssl::context& tls, bool verify, bool public_only, target t, request req,
                                 std::chrono::steady_clock::time_point deadline, std::size_t& budget) {
  auto ex = co_await net::this_coro::executor;
  beast::error_code ec;
  tcp::resolver resolver{ex};
  auto endpoints = co_await resolver.async_resolve(t.host, t.port, net::redirect_error(use_awaitable, ec));
  if (ec) co_return unreachable("cannot resolve " + t.host + ": " + ec.message());
  auto allowed = reachable(endpoints, t, public_only);
  if (!allowed) co_return allowed.error();
  beast::tcp_stream tcp_stream{ex};
  tcp_stream.expires_at(deadline);
  co_await tcp_stream.async_connect(*allowed, net::redirect_error(use_awaitable, ec));
  if (ec) co_return failure_of(ec, "connecting to " + t.host_header);
  if (!t.tls) co_return co_await exchange(tcp_stream, req, budget);

  beast::ssl_stream<beast::tcp_stream> stream{std::move(tcp_stream), tls};
  if (!SSL_set_tlsext_host_name(stream.native_handle(), t.host.c_str()))
    co_return unreachable("cannot set the TLS server name");
  if (verify) stream.set_verify_callback(net::ssl::host_name_verification(t.host));
  co_await stream.async_handshake(net::ssl::stream_base::client, net::redirect_error(use_awaitable, ec));
  if (ec) co_return failure_of(ec, "the TLS handshake with " + t.host_header);
  co_return co_await exchange(stream, req, budget);
}

}  // namespace

std::string endpoint_url(std::string_view base, std::string_view path) {
  while (!base.empty() && base.back() == '/') base.remove_suffix(1);
  return std::string{base}.append(path);
}

client::client(bool verify_tls) : tls_(net::ssl::context::tls_client), verify_tls_(verify_tls) {
  if (verify_tls_) {
    tls_.set_default_verify_paths();
    tls_.set_verify_mode(net::ssl::verify_peer);
  } else {
    tls_.set_verify_mode(net::ssl::verify_none);
  }
}

fetch_result client::fetch(const client_request& spec, std::chrono::steady_clock::time_point deadline,
                           std::size_t& budget) {
  auto t = target_of(spec.url);
  if (!t) return refused("url", "the URL is not usable: " + t.error().reason);
  request req{spec.method, t->path_and_query, 11};
  req.set(bhttp::field::host, t->host_header);
  req.set(bhttp::field::user_agent, "z402");
  for (auto& [name, value] : spec.headers) req.set(name, value);
  if (!spec.body.empty() || spec.method == bhttp::verb::post) {
    req.body() = spec.body;
    req.prepare_payload();
  }
  req.keep_alive(false);

  net::io_context ioc{1};
  std::optional<fetch_result> result;
  // The coroutine hands its answer over by reference: co_spawn would need an answer it can
  // default-construct for the exception path, and an expected has none.
  auto exchange_into = [&](target to, request r) -> net::awaitable<void> {
    result.emplace(co_await run(tls_, verify_tls_, spec.public_addresses_only, std::move(to), std::move(r), deadline, budget));
  };
  net::co_spawn(ioc, exchange_into(std::move(*t), std::move(req)), [&](std::exception_ptr error) {
    if (error) result = unreachable("the exchange failed");
  });
  // The stream deadlines cover connect and I/O; this bound also covers name resolution.
  ioc.run_until(deadline + std::chrono::milliseconds{50});
  if (!result) return error{errc::timed_out, "", "the deadline passed"};
  return std::move(*result);
}

}  // namespace z402::http
