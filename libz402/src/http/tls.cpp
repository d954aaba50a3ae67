#include "z402/http/tls.hpp"

#include "z402/config/pem_files.hpp"

#include <openssl/ssl.h>
#include <sys/stat.h>

namespace z402::http {
namespace {

namespace ssl = boost::asio::ssl;

// ALPN (RFC 7301): this server speaks HTTP/1.1 only. A client that offers protocols but not
// http/1.1 (h2 alone) is refused with no_application_protocol rather than spoken to in a
// protocol it did not ask for; a client that offers none gets HTTP/1.1.
int select_http11(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in, unsigned int inlen,
                  void*) {
  static const unsigned char http11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
  unsigned char* selected = nullptr;
  if (SSL_select_next_proto(&selected, outlen, http11, sizeof http11, in, inlen) != OPENSSL_NPN_NEGOTIATED)
    return SSL_TLSEXT_ERR_ALERT_FATAL;
  *out = selected;
  return SSL_TLSEXT_ERR_OK;
}

error unusable(std::string reason) { return {errc::io_error, "", std::move(reason)}; }

}  // namespace

expected<std::shared_ptr<ssl::context>> make_server_context(const tls_files& files) {
  if (auto private_key = config::refuse_readable_key(files.key, "the TLS key"); !private_key) return private_key.error();
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
  auto* h = ctx->native_handle();
  SSL_CTX_set_min_proto_version(h, TLS1_2_VERSION);
  SSL_CTX_set_max_proto_version(h, TLS1_3_VERSION);
  SSL_CTX_set_options(h, SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_NO_COMPRESSION);
  // TLS 1.2: forward-secret AEAD suites only (TLS 1.3's suites are all of that kind).
  SSL_CTX_set_cipher_list(h, "ECDHE+AESGCM:ECDHE+CHACHA20");
  ERR_clear_error();
  if (SSL_CTX_use_certificate_chain_file(h, files.certificate.c_str()) != 1)
    return unusable("cannot load the TLS certificate " + files.certificate.string() + ": " + config::openssl_reason());
  if (SSL_CTX_use_PrivateKey_file(h, files.key.c_str(), SSL_FILETYPE_PEM) != 1)
    return unusable("cannot load the TLS key " + files.key.string() + ": " + config::openssl_reason());
  if (SSL_CTX_check_private_key(h) != 1)
    return unusable("the TLS key " + files.key.string() + " does not match the certificate " + files.certificate.string());
  SSL_CTX_set_alpn_select_cb(h, select_http11, nullptr);
  return ctx;
}

expected<std::shared_ptr<tls_certificates>> tls_certificates::load(tls_files files, telemetry::logger log) {
  auto stamp = stamp_of(files);
  auto first = make_server_context(files);
  if (!first) return first.error();
  return std::shared_ptr<tls_certificates>{new tls_certificates{std::move(files), log, std::move(stamp), std::move(*first)}};
}

tls_certificates::tls_certificates(tls_files files, telemetry::logger log, std::string stamp,
                                   std::shared_ptr<boost::asio::ssl::context> first)
    : files_(std::move(files)), log_(log.with_component("http.tls")), stamp_(std::move(stamp)), current_(std::move(first)) {}

std::string tls_certificates::stamp_of(const tls_files& files) {
  std::string s;
  for (auto* p : {&files.certificate, &files.key}) {
    struct stat st {};
    if (::stat(p->c_str(), &st) != 0) return {};
    s += std::to_string(st.st_ino) + ":" + std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec) + ";";
  }
  return s;
}

bool tls_certificates::reload(bool force) {
  auto now = stamp_of(files_);
  if (!force && now == stamp_) return false;
  // Files replaced one after the other (certificate, then key) may be caught in between: the
  // check that the key matches refuses that state, and the next change retries.
  auto next = make_server_context(files_);
  // A file replaced while it was read: what was read may be neither the stamp's files nor the
  // settled ones. Nothing is taken; the next poll, the files settled, loads them once (it was
  // loaded twice, the settled pair again under a new stamp: seen on a loaded machine).
  if (stamp_of(files_) != now) return false;
  stamp_ = now;
  if (!next) {
    log_.error("keeping the previous TLS certificate", {{"reason", next.error().reason}});
    return false;
  }
  current_.store(std::move(*next), std::memory_order_release);
  log_.info("TLS certificate loaded", {{"certificate", files_.certificate.string()}});
  return true;
}

}  // namespace z402::http
