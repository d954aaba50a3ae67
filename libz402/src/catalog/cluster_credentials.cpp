#include "catalog/cluster_credentials.hpp"

#include "z402/config/pem_files.hpp"

#include <caf/io/middleman.hpp>
#include <caf/openssl/manager.hpp>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/mman.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <vector>

namespace z402::catalog {
namespace {

template <class T, void (*Free)(T*)>
struct openssl_delete {
  void operator()(T* p) const { Free(p); }
};
using x509_ptr = std::unique_ptr<X509, openssl_delete<X509, X509_free>>;
using key_ptr = std::unique_ptr<EVP_PKEY, openssl_delete<EVP_PKEY, EVP_PKEY_free>>;
using bio_ptr = std::unique_ptr<BIO, openssl_delete<BIO, BIO_free_all>>;
using store_ptr = std::unique_ptr<X509_STORE, openssl_delete<X509_STORE, X509_STORE_free>>;
using store_ctx_ptr = std::unique_ptr<X509_STORE_CTX, openssl_delete<X509_STORE_CTX, X509_STORE_CTX_free>>;
void free_certificates(STACK_OF(X509) * s) { sk_X509_pop_free(s, X509_free); }
using stack_ptr = std::unique_ptr<STACK_OF(X509), openssl_delete<STACK_OF(X509), free_certificates>>;

error refused(std::string field, std::string reason) { return {errc::invalid_request, std::move(field), std::move(reason)}; }

expected<std::string> read_whole(const std::filesystem::path& file, const char* field) {
  std::ifstream in{file, std::ios::binary};
  if (!in) return error{errc::io_error, field, std::string{"cannot read "} + field + " " + file.string()};
  return std::string{std::istreambuf_iterator<char>{in}, {}};
}

// Every certificate in a PEM text, in order; none is a refusal.
expected<std::vector<x509_ptr>> certificates_in(const std::string& pem, const char* field, const std::filesystem::path& file) {
  bio_ptr bio{BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()))};
  std::vector<x509_ptr> out;
  while (X509* c = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) out.emplace_back(c);
  ERR_clear_error();  // the end of the text reads as an error
  if (out.empty()) return refused(field, std::string{field} + " " + file.string() + " holds no PEM certificate");
  return out;
}

std::string subject_of(X509* cert) {
  bio_ptr bio{BIO_new(BIO_s_mem())};
  X509_NAME_print_ex(bio.get(), X509_get_subject_name(cert), 0, XN_FLAG_RFC2253);
  char* text = nullptr;
  auto n = BIO_get_mem_data(bio.get(), &text);
  return std::string{text, static_cast<std::size_t>(n)};
}

// A file that lives in memory for the run, readable again by path (/proc/self/fd/N).
expected<int> pin(const std::string& content, const char* field) {
  int fd = ::memfd_create(field, MFD_CLOEXEC);
  if (fd < 0) return error{errc::io_error, field, std::string{"cannot hold "} + field + " in memory"};
  for (std::size_t done = 0; done < content.size();) {
    auto n = ::write(fd, content.data() + done, content.size() - done);
    if (n <= 0) {
      ::close(fd);
      return error{errc::io_error, field, std::string{"cannot hold "} + field + " in memory"};
    }
    done += static_cast<std::size_t>(n);
  }
  return fd;
}

std::string path_of(int fd) { return "/proc/self/fd/" + std::to_string(fd); }

}  // namespace

expected<cluster_credentials> cluster_credentials::load(const config::cluster_files& files) {
  for (auto [field, path] : {std::pair{"cluster.ca", &files.ca}, {"cluster.cert", &files.cert}, {"cluster.key", &files.key}})
    if (path->empty()) return refused(field, std::string{"cluster needs ca, cert and key; "} + field + " is missing");
  if (auto private_key = config::refuse_readable_key(files.key, "cluster.key", "cluster.key"); !private_key) return private_key.error();
  auto ca_pem = read_whole(files.ca, "cluster.ca");
  if (!ca_pem) return ca_pem.error();
  auto cert_pem = read_whole(files.cert, "cluster.cert");
  if (!cert_pem) return cert_pem.error();
  auto key_pem = read_whole(files.key, "cluster.key");
  if (!key_pem) return key_pem.error();

  auto cas = certificates_in(*ca_pem, "cluster.ca", files.ca);
  if (!cas) return cas.error();
  auto chain = certificates_in(*cert_pem, "cluster.cert", files.cert);
  if (!chain) return chain.error();
  X509* cert = (*chain)[0].get();
  bio_ptr key_bio{BIO_new_mem_buf(key_pem->data(), static_cast<int>(key_pem->size()))};
  key_ptr key{PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr)};
  if (!key) return refused("cluster.key", "cluster.key " + files.key.string() + ": " + config::openssl_reason());
  if (X509_check_private_key(cert, key.get()) != 1) {
    ERR_clear_error();
    return refused("cluster.key", "cluster.key " + files.key.string() + " is not the key of cluster.cert " + files.cert.string());
  }
  // Each node accepts followers and follows: its certificate must serve both ends of a link,
  // or the other end's OpenSSL refuses it at the handshake with no word why.
  if (X509_check_purpose(cert, X509_PURPOSE_SSL_SERVER, 0) != 1 || X509_check_purpose(cert, X509_PURPOSE_SSL_CLIENT, 0) != 1)
    return refused("cluster.cert", "cluster.cert " + files.cert.string() +
                                       " must allow both TLS server and client use (extendedKeyUsage serverAuth,clientAuth)");
  // What the other end will check: signed by the cluster CA (through the chain the file carries)
  // and valid now.
  store_ptr store{X509_STORE_new()};
  for (auto& ca : *cas) X509_STORE_add_cert(store.get(), ca.get());
  stack_ptr untrusted{sk_X509_new_null()};
  for (std::size_t i = 1; i < chain->size(); ++i) {
    X509_up_ref((*chain)[i].get());
    sk_X509_push(untrusted.get(), (*chain)[i].get());
  }
  store_ctx_ptr check{X509_STORE_CTX_new()};
  X509_STORE_CTX_init(check.get(), store.get(), cert, untrusted.get());
  if (X509_verify_cert(check.get()) != 1) {
    auto why = X509_verify_cert_error_string(X509_STORE_CTX_get_error(check.get()));
    ERR_clear_error();
    return refused("cluster.cert", "cluster.cert " + files.cert.string() + " does not verify against cluster.ca " +
                                       files.ca.string() + ": " + why);
  }

  cluster_credentials out;
  out.subject_ = subject_of(cert);
  const std::string* contents[] = {&*ca_pem, &*cert_pem, &*key_pem};
  const char* fields[] = {"cluster.ca", "cluster.cert", "cluster.key"};
  for (std::size_t i = 0; i < 3; ++i) {
    auto fd = pin(*contents[i], fields[i]);
    if (!fd) return fd.error();
    out.pinned_[i] = *fd;
  }
  return out;
}

void cluster_credentials::configure(caf::actor_system_config& cfg) const {
  cfg.openssl_cafile = path_of(pinned_[0]);
  cfg.openssl_certificate = path_of(pinned_[1]);
  cfg.openssl_key = path_of(pinned_[2]);
  cfg.load<caf::io::middleman>();
  cfg.load<caf::openssl::manager>();
}

cluster_credentials::cluster_credentials(cluster_credentials&& other) noexcept
    : pinned_(other.pinned_), subject_(std::move(other.subject_)) {
  other.pinned_ = {-1, -1, -1};
}

cluster_credentials::~cluster_credentials() {
  for (int fd : pinned_)
    if (fd >= 0) ::close(fd);
}

}  // namespace z402::catalog
