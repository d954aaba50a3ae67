#pragma once
// The server side of HTTPS: TLS 1.2 and 1.3 only, HTTP/1.1 over ALPN, a certificate chain and
// key from PEM files, re-read without a restart. Each new connection takes the context that
// is current when it is accepted and keeps it for its life, so a rotation never drops an open
// connection.
#include "z402/error.hpp"
#include "z402/telemetry/log.hpp"

#include <boost/asio/ssl/context.hpp>

#include <atomic>
#include <filesystem>
#include <memory>
#include <string>

namespace z402::http {

struct tls_files {
  std::filesystem::path certificate;  // PEM: the server certificate, then its chain
  std::filesystem::path key;          // PEM private key; must not be readable by others
};

class tls_certificates {
 public:
  /// Loads both files, or says in one line (errc::io_error) which file and what is wrong:
  /// missing, unreadable, not PEM, a key that does not match, a key file readable by others.
  static expected<std::shared_ptr<tls_certificates>> load(tls_files files, telemetry::logger log);

  /// The context for a connection accepted now.
  std::shared_ptr<boost::asio::ssl::context> current() const { return current_.load(std::memory_order_acquire); }

  /// Re-reads the files when their size, mtime or inode changed (or always, with `force`:
  /// SIGHUP). A failure keeps the current certificate and logs one line; returns whether a
  /// new certificate is now in use.
  bool reload(bool force);

  const tls_files& files() const { return files_; }

 private:
  tls_certificates(tls_files files, telemetry::logger log, std::string stamp,
                   std::shared_ptr<boost::asio::ssl::context> first);
  /// The files' inodes, sizes and mtimes: changes when either file is replaced or edited.
  static std::string stamp_of(const tls_files& files);

  tls_files files_;
  telemetry::logger log_;
  std::string stamp_;  // of the files behind current_
  std::atomic<std::shared_ptr<boost::asio::ssl::context>> current_;
};

/// Builds a server context from `files` (the checks of the constructor above).
expected<std::shared_ptr<boost::asio::ssl::context>> make_server_context(const tls_files& files);

}  // namespace z402::http
