#include "http/refusal.hpp"

#include "z402/http/message.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include <array>
#include <chrono>
#include <memory>
#include <string>

namespace z402::http {
namespace {

using tcp = boost::asio::ip::tcp;

constexpr std::chrono::seconds linger{1};

/// The whole answer, made once: the error shape every answer has (error_response), its code
/// `overloaded` (503), and the head a connection that is closed after it needs.
const std::string& refusal_answer() {
  static const std::string answer = [] {
    auto res = error_response(error{errc::overloaded, {},
                                    "the server has as many connections open as it is configured for; retry in a second"});
    return "HTTP/1.1 " + std::to_string(res.result_int()) + " Service Unavailable\r\nContent-Type: application/json\r\n"
           "Retry-After: 1\r\nConnection: close\r\nContent-Length: " + std::to_string(res.body().size()) + "\r\n\r\n" +
           std::string{res.body()};
  }();
  return answer;
}

/// The refused connection while its answer goes out and what the client sent is dropped.
struct refusal : std::enable_shared_from_this<refusal> {
  explicit refusal(tcp::socket s) : socket(std::move(s)), deadline(socket.get_executor()) {}

  void start() {
    deadline.expires_after(linger);
    deadline.async_wait([self = shared_from_this()](boost::system::error_code ec) {
      if (!ec) self->socket.close(ec);
    });
    boost::asio::async_write(socket, boost::asio::buffer(refusal_answer()),
                             [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
                               if (ec) return self->end();
                               self->socket.shutdown(tcp::socket::shutdown_send, ec);
                               self->drop();
                             });
  }

  void drop() {
    socket.async_read_some(boost::asio::buffer(sink), [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
      if (ec) return self->end();
      self->drop();
    });
  }

  void end() {
    boost::system::error_code ignored;
    deadline.cancel();
    socket.close(ignored);
  }

  tcp::socket socket;
  boost::asio::steady_timer deadline;
  std::array<char, 1024> sink{};
};

}  // namespace

void refuse_connection(tcp::socket socket, bool tls) {
  if (tls) {
    boost::system::error_code ignored;
    socket.close(ignored);
    return;
  }
  std::make_shared<refusal>(std::move(socket))->start();
}

}  // namespace z402::http
