#include "http/tls_stream.hpp"

#include <boost/asio/error.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/beast/core/error.hpp>

#include <openssl/err.h>
#include <openssl/x509v3.h>

#include <cerrno>
#include <new>

namespace z402::http {

tls_stream::tls_stream(socket_type socket, SSL_CTX* context) : socket_(std::move(socket)), ssl_(SSL_new(context)) {
  if (!ssl_) throw std::bad_alloc();
  error_code ignored;
  socket_.native_non_blocking(true, ignored);
  SSL_set_fd(ssl_, static_cast<int>(socket_.native_handle()));
  SSL_set_accept_state(ssl_);
  // Partial writes: a write returns once a record is out, so a page goes record by record
  // without the caller copying it. Moving buffer: a write resumed after a wait may come from a
  // new address holding the same bytes. Released buffers: a connection between requests holds
  // no 17 KB record buffers.
  SSL_set_mode(ssl_, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS);
  SSL_set_read_ahead(ssl_, 1);
}

tls_stream::tls_stream(socket_type socket, SSL_CTX* context, const std::string& server_name)
    : tls_stream(std::move(socket), context) {
  SSL_set_connect_state(ssl_);
  // An address is checked against the certificate's IP addresses and sent as no SNI (RFC 6066
  // names hosts only); a name against its DNS names.
  boost::system::error_code not_an_address;
  boost::asio::ip::make_address(server_name, not_an_address);
  bool named = not_an_address
                   ? SSL_set_tlsext_host_name(ssl_, server_name.c_str()) == 1 && SSL_set1_host(ssl_, server_name.c_str()) == 1
                   : X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_), server_name.c_str()) == 1;
  if (!named) throw std::bad_alloc();  // OpenSSL could not copy the name
}

tls_stream::~tls_stream() { SSL_free(ssl_); }

std::size_t tls_stream::write_some(std::string_view bytes, want& next, error_code& ec) {
  ERR_clear_error();
  std::size_t written = 0;
  next = want::nothing;
  ec = outcome(SSL_write_ex(ssl_, bytes.data(), bytes.size(), &written), next);
  return ec || next != want::nothing ? 0 : written;
}

tls_stream::error_code tls_stream::outcome(int result, want& next) const {
  next = want::nothing;
  if (result == 1) return {};
  switch (SSL_get_error(ssl_, result)) {
    case SSL_ERROR_WANT_READ:
      next = want::read;
      return {};
    case SSL_ERROR_WANT_WRITE:
      next = want::write;
      return {};
    case SSL_ERROR_ZERO_RETURN:  // the client's close_notify
      return boost::asio::error::eof;
    case SSL_ERROR_SYSCALL:
      if (errno == 0) return boost::asio::error::eof;
      return {errno, boost::system::system_category()};
    default: {
      auto reason = ERR_get_error();
      ERR_clear_error();
      if (ERR_GET_REASON(reason) == SSL_R_UNEXPECTED_EOF_WHILE_READING) return boost::asio::error::eof;
      return {static_cast<int>(reason), boost::asio::error::get_ssl_category()};
    }
  }
}

tls_stream::error_code tls_stream::timeout() { return boost::beast::error::timeout; }

}  // namespace z402::http
