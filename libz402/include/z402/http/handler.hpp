#pragma once
// What a z402 server serves: the server owns connections, limits, pipelining and the access
// log; a handler decides, per request, the body limit, an early answer, and the answer.
#include "z402/http/message.hpp"

#include <any>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

namespace z402::http {

/// A connection, as answers reach it (the server's sessions, over TCP or TLS, implement it).
class session {
 public:
  virtual ~session() = default;
  /// Fills answer slot `seq`, from any thread.
  virtual void answer(std::size_t seq, response res) = 0;
  /// Drain: closes the connection when it has no request in progress and no answer pending.
  virtual void close_if_idle() = 0;
  /// Drain's deadline: closes the connection now, whatever it is doing; its pending operations
  /// end with an error, and so does the connection, through its own handlers.
  virtual void close_now() = 0;
};

/// Fills one pipelined answer slot later, from any thread. Copyable (holds the connection
/// alive); the first call answers, the answer is written in request order.
class responder {
 public:
  responder(std::shared_ptr<session> s, std::size_t seq) : session_(std::move(s)), seq_(seq) {}
  void operator()(response res) const;

 private:
  std::shared_ptr<session> session_;
  std::size_t seq_;
};

/// Decided from the request line and headers, before a body is read.
struct header_verdict {
  std::size_t body_limit = 0;     // bytes of body this request may carry
  std::optional<response> early;  // set: answer this, do not call on_request
  /// What on_header learnt that on_request needs (e.g. the route and the authenticated caller):
  /// the server keeps it with the request and hands it back, so nothing is decided twice.
  std::any context;
  /// Set: the body is read only once this calls `go`, once, from any thread (e.g. when a budget
  /// of body bytes has room for it). Until then the connection reads nothing more and its
  /// request deadline is not running; the deadline starts again with the body's read.
  std::function<void(std::function<void()> go)> before_body;
};

class handler {
 public:
  virtual ~handler() = default;
  /// The largest body any request may carry (Beast checks Content-Length against a limit
  /// while it parses the header, before on_header can pick the request's own).
  virtual std::size_t max_body_limit() const = 0;
  virtual header_verdict on_header(const request_header& req) = 0;
  /// The whole request (the handler may take its body), with the context its on_header gave.
  /// Returns the answer, or nothing when `reply` will be called later.
  virtual std::optional<response> on_request(request& req, std::any& context, const responder& reply) = 0;
  /// The fixed names under which requests are counted, and which one a path counts under
  /// (metrics labels: a small set, never a raw path).
  virtual std::span<const std::string_view> route_names() const;
  virtual std::size_t route_index(std::string_view path) const;
};

}  // namespace z402::http
