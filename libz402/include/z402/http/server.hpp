#pragma once
// The Beast front end: one strand per connection, bounded and ordered pipelining (writes
// complete asynchronously), header/body limits, timeouts, and a graceful drain on shutdown.
#include "z402/http/access_log.hpp"
#include "z402/http/handler.hpp"

#include <boost/asio/io_context.hpp>
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
  std::chrono::seconds read_timeout{15};              // per request: slow clients are cut off
  std::chrono::seconds idle_timeout{60};              // between keep-alive requests
  std::size_t pipeline_limit = 16;
  std::chrono::seconds drain_deadline{5};
};

class session;

class server {
 public:
  server(boost::asio::io_context& ioc, server_options options, handler& h, access_log& log);

  /// Binds and starts accepting. Throws boost::system::system_error when it cannot bind.
  void start();
  std::uint16_t port() const { return bound_port_; }

  /// Stops accepting, closes idle connections, lets busy ones finish their answers, and
  /// forces the rest closed after the drain deadline. `on_drained` runs once on the io
  /// context when no connection is left.
  void drain(std::function<void()> on_drained);

  // For sessions.
  http::handler& handler() { return handler_; }
  access_log& log() { return log_; }
  const server_options& options() const { return options_; }
  bool draining() const { return draining_.load(); }
  void session_ended();

 private:
  void accept();

  boost::asio::io_context& ioc_;
  server_options options_;
  http::handler& handler_;
  access_log& log_;
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::steady_timer accept_pause_;  // after an accept error
  std::uint16_t bound_port_ = 0;
  std::atomic<bool> draining_{false};
  std::atomic<std::size_t> live_sessions_{0};
  std::mutex sessions_mutex_;
  std::vector<std::weak_ptr<session>> sessions_;
  boost::asio::steady_timer deadline_;
  std::function<void()> on_drained_;
  std::atomic<bool> drained_{false};
};

}  // namespace z402::http
