#pragma once
// The Beast front end: each connection on one thread of the io_pool (no strand), bounded and
// ordered pipelining (writes complete asynchronously), header/body limits, timeouts, and a
// graceful drain on shutdown.
// Plain HTTP or HTTPS (tls set): the same session code over a TCP or a TLS stream.
#include "z402/http/access_log.hpp"
#include "z402/http/handler.hpp"
#include "z402/http/io_pool.hpp"
#include "z402/http/server_metrics.hpp"
#include "z402/http/tls.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace z402::http {

struct server_options {
  std::string host = "127.0.0.1";
  std::uint16_t port = 3000;  // 0: any free port
  std::size_t header_limit = 16u << 10;
  std::chrono::seconds read_timeout{15};              // per request (header and body), and per write
  std::chrono::seconds idle_timeout{60};              // between keep-alive requests
  /// Connections open at once. A connection past it is refused at once (503 over plain HTTP,
  /// closed over TLS) and counted, never queued; set below the fd limit, so refusing has fds left.
  std::size_t max_connections = 10'000;
  /// Requests read ahead of their answers on one connection: a client that never reads its
  /// responses holds at most this many (and what the socket buffers take).
  std::size_t pipeline_limit = 16;
  std::chrono::seconds drain_deadline{5};
  std::shared_ptr<tls_certificates> tls;  // set: every connection speaks TLS first
  server_metrics* metrics = nullptr;      // set: requests and connections are counted there
};

class server {
 public:
  /// Listens on `io`'s main context and spreads connections over all of its contexts.
  server(io_pool& io, server_options options, handler& h, const access_log& log);

  /// Binds and starts accepting. Throws boost::system::system_error when it cannot bind.
  void start();
  std::uint16_t port() const { return bound_port_; }

  /// Stops accepting, closes idle connections, lets busy ones finish their answers, closes the
  /// rest after the drain deadline (each ends through its own handlers, the io_pool still
  /// running), and stops the io_pool if any is left a deadline after that. `on_drained` runs
  /// once on the main context when no connection is left.
  void drain(std::function<void()> on_drained);

  // For sessions.
  http::handler& handler() { return handler_; }
  const access_log& log() const { return log_; }
  const server_options& options() const { return options_; }
  bool draining() const { return draining_.load(); }
  void session_ended();

 private:
  /// The sessions alive now (sessions_ keeps them weakly).
  std::vector<std::shared_ptr<session>> live_sessions();
  void accept();
  template <class Session>
  void start_session(std::shared_ptr<Session> s);

  io_pool& io_;
  server_options options_;
  http::handler& handler_;
  const access_log& log_;
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::steady_timer accept_pause_;  // after an accept error
  std::uint16_t bound_port_ = 0;
  std::atomic<bool> draining_{false};
  std::atomic<std::size_t> live_sessions_{0};
  std::mutex sessions_mutex_;
  std::vector<std::weak_ptr<session>> sessions_;
  std::size_t sweep_sessions_at_ = 64;  // sessions_'s size at which ended ones are next dropped
  boost::asio::steady_timer deadline_;
  std::function<void()> on_drained_;
  std::atomic<bool> drained_{false};
};

}  // namespace z402::http
