#pragma once
// A TLS connection with OpenSSL reading and writing the socket itself (SSL_set_fd on a
// non-blocking descriptor), waiting on the socket only when OpenSSL says it must: the server's
// side of every HTTPS connection, and the client's side of the load generator's.
//
// Why not Asio's ssl::stream: it runs OpenSSL over a memory BIO pair, so every record is copied
// from OpenSSL's buffer into the pair, out of the pair into the stream's buffer, and only then
// written; a 150 KB page cost three copies of itself beside its encryption, and the stream held
// four 17 KB buffers per connection for its life (profile.md). Here a record goes from
// OpenSSL's buffer to the socket in one write, as nginx sends it, and with
// SSL_MODE_RELEASE_BUFFERS an idle connection holds no record buffer at all.
//
// Reads are an Asio AsyncReadStream (Beast's parsers read through async_read_some); writes are
// non-blocking calls whose caller waits for the socket as it does over plain TCP (the server's
// session), or an AsyncWriteStream's async_write_some (net::async_write: the generator). The
// handshake, reads and asynchronous writes wait under the deadline of expires_after, as
// beast::tcp_stream's operations do; one read and one write may wait at once.
#include <boost/asio/async_result.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/system/error_code.hpp>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace z402::http {

class tls_stream {
 public:
  using socket_type = boost::asio::ip::tcp::socket;
  using executor_type = socket_type::executor_type;
  using error_code = boost::system::error_code;
  /// What a call that could not finish waits for before it is called again.
  enum class want { nothing, read, write };

  /// The server's side: takes `socket` (made non-blocking) and a new session of `context`.
  /// Throws std::bad_alloc when OpenSSL cannot make one.
  tls_stream(socket_type socket, SSL_CTX* context);
  /// The client's side, for `server_name`: sent as SNI, and the name the server's certificate
  /// must carry when `context` verifies the peer. Throws std::bad_alloc as above.
  tls_stream(socket_type socket, SSL_CTX* context, const std::string& server_name);
  tls_stream(const tls_stream&) = delete;
  tls_stream& operator=(const tls_stream&) = delete;
  ~tls_stream();

  executor_type get_executor() { return socket_.get_executor(); }
  socket_type& socket() { return socket_; }

  /// The deadline of the waits of the operations started from now on: past it the socket is
  /// cancelled and the operation ends with beast::error::timeout.
  void expires_after(std::chrono::steady_clock::duration timeout) {
    expiry_ = std::chrono::steady_clock::now() + timeout;
  }
  /// No deadline for the operations started from now on (the default): their waits arm no
  /// timer, for a caller that bounds them itself (the server's sessions: connection_deadlines).
  void expires_never() { expiry_ = std::chrono::steady_clock::time_point::max(); }

  /// The handshake, in the role the stream was made for; completes with (error_code).
  template <class Token>
  auto async_handshake(Token&& token) {
    return boost::asio::async_initiate<Token, void(error_code)>(
        [this](auto handler) { run(handshake_op<decltype(handler)>{*this, std::move(handler)}, read_deadline_, true); }, token);
  }

  /// Decrypted bytes into the first of `buffers` (Beast's flat_buffer gives one); completes with
  /// (error_code, bytes read), never inside this call.
  template <class MutableBuffers, class Token>
  auto async_read_some(const MutableBuffers& buffers, Token&& token) {
    auto first = *boost::asio::buffer_sequence_begin(buffers);
    return boost::asio::async_initiate<Token, void(error_code, std::size_t)>(
        [this, first](auto handler) {
          run(read_op<decltype(handler)>{*this, first.data(), first.size(), std::move(handler)}, read_deadline_, true);
        },
        token);
  }

  /// Encrypts and sends from the first of `buffers` (at least a record's worth when it can);
  /// completes with (error_code, bytes taken), never inside this call.
  template <class ConstBuffers, class Token>
  auto async_write_some(const ConstBuffers& buffers, Token&& token) {
    auto first = *boost::asio::buffer_sequence_begin(buffers);
    return boost::asio::async_initiate<Token, void(error_code, std::size_t)>(
        [this, first](auto handler) {
          run(write_op<decltype(handler)>{*this, {static_cast<const char*>(first.data()), first.size()}, std::move(handler)},
              write_deadline_, true);
        },
        token);
  }

  /// Encrypts and sends from `bytes` without waiting: the count taken (at least a record's worth
  /// when the socket has room), or 0 with `next` saying what to wait for, or 0 with `ec` set.
  /// After a wait, call it again with the same bytes (OpenSSL's rule for a write it began).
  std::size_t write_some(std::string_view bytes, want& next, error_code& ec);

  /// Whether OpenSSL already holds decrypted bytes or a record not yet read: a reader must not
  /// wait on the socket for them.
  bool has_pending() const { return SSL_has_pending(ssl_) == 1; }

 private:
  // One step of an OpenSSL call: 1 when done, else what SSL_get_error says (with the socket's
  // errno or OpenSSL's reason turned into `ec`, or `next` set to wait).
  error_code outcome(int result, want& next) const;

  // Runs `op` until it is done or must wait; a wait resumes it from the socket's handler.
  // `initiating`: called from the operation's start, whose completion must be posted.
  template <class Op>
  void run(Op op, boost::asio::steady_timer& deadline, bool initiating) {
    want next = want::nothing;
    auto done = op.step(next);
    if (next == want::nothing) {
      if (initiating)
        return boost::asio::post(get_executor(), [op = std::move(op), done]() mutable { op.finish(done); });
      return op.finish(done);
    }
    wait(next, deadline, [this, &deadline, op = std::move(op)](error_code ec) mutable {
      if (ec) return op.fail(ec);
      run(std::move(op), deadline, false);
    });
  }

  // Waits for the socket to be readable or writable until the deadline, on `deadline` (a read
  // and a write may wait at once, each on its own timer; none without a deadline). A wait
  // cancelled once its deadline had passed ends with timeout().
  template <class Then>
  void wait(want what, boost::asio::steady_timer& deadline, Then then) {
    const bool bounded = expiry_ != std::chrono::steady_clock::time_point::max();
    if (bounded) {
      deadline.expires_at(expiry_);
      deadline.async_wait([alive = std::weak_ptr<char>{alive_}, this, &deadline](error_code ec) {
        if (ec || alive.expired()) return;
        if (deadline.expiry() <= std::chrono::steady_clock::now()) socket_.cancel();
      });
    }
    socket_.async_wait(what == want::read ? socket_type::wait_read : socket_type::wait_write,
                       [&deadline, bounded, then = std::move(then)](error_code ec) mutable {
                         bool late = bounded && deadline.expiry() <= std::chrono::steady_clock::now();
                         if (bounded) deadline.expires_at(std::chrono::steady_clock::time_point::max());
                         if (ec == boost::asio::error::operation_aborted && late) ec = timeout();
                         then(ec);
                       });
  }

  static error_code timeout();

  template <class Handler>
  struct handshake_op {
    tls_stream& s;
    Handler handler;
    error_code step(want& next) {
      ERR_clear_error();  // SSL_get_error reads the thread's queue: nothing of another call's
      return s.outcome(SSL_do_handshake(s.ssl_), next);
    }
    void finish(error_code ec) { std::move(handler)(ec); }
    void fail(error_code ec) { std::move(handler)(ec); }
  };

  template <class Handler>
  struct write_op {
    tls_stream& s;
    std::string_view bytes;
    Handler handler;
    std::size_t put = 0;
    error_code step(want& next) {
      error_code ec;
      put = s.write_some(bytes, next, ec);
      return ec;
    }
    void finish(error_code ec) { std::move(handler)(ec, put); }
    void fail(error_code ec) { std::move(handler)(ec, std::size_t{0}); }
  };

  template <class Handler>
  struct read_op {
    tls_stream& s;
    void* data;
    std::size_t size;
    Handler handler;
    std::size_t got = 0;
    error_code step(want& next) {
      if (size == 0) return {};
      ERR_clear_error();
      return s.outcome(SSL_read_ex(s.ssl_, data, size, &got), next);
    }
    void finish(error_code ec) { std::move(handler)(ec, got); }
    void fail(error_code ec) { std::move(handler)(ec, std::size_t{0}); }
  };

  socket_type socket_;
  SSL* ssl_;
  boost::asio::steady_timer read_deadline_{socket_.get_executor()};  // the handshake's and reads'
  boost::asio::steady_timer write_deadline_{socket_.get_executor()};
  std::chrono::steady_clock::time_point expiry_ = std::chrono::steady_clock::time_point::max();
  std::shared_ptr<char> alive_ = std::make_shared<char>();  // a deadline's handler may outlive the stream
};

}  // namespace z402::http
