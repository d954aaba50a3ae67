#pragma once
// The cluster's mutual TLS: checked once at start, then handed to CAF's
// OpenSSL module (libcaf_openssl), which makes every cluster link verify both ends against the
// cluster CA and nothing else.
//
// CAF 0.17.6 reads the three files again for every connection, and a file it cannot read then
// raises in the middleman's thread, which ends the process. So the files are read and checked
// here, once, and CAF is given their contents as checked, held in memory (memfd) for the run:
// a certificate replaced on disk takes effect at the next restart, and never half-way.
#include "z402/config/bazaar_config.hpp"
#include "z402/error.hpp"

#include <caf/actor_system_config.hpp>

#include <array>
#include <string>

namespace z402::catalog {

class cluster_credentials {
 public:
  /// Reads and checks `files`, or says which field is wrong and why (errc::invalid_request or
  /// io_error): missing or unreadable, not PEM, a key others may read, a key that is not the
  /// certificate's, a certificate the CA did not sign (or expired), one not made for both TLS
  /// client and server use (each node is both).
  static expected<cluster_credentials> load(const config::cluster_files& files);

  /// Loads the middleman and CAF's OpenSSL module into `cfg` with these credentials. Keep this
  /// object alive as long as the actor system built from `cfg`.
  void configure(caf::actor_system_config& cfg) const;

  /// The subject of this node's certificate, for the start-up log.
  const std::string& subject() const { return subject_; }

  cluster_credentials(cluster_credentials&& other) noexcept;
  cluster_credentials& operator=(cluster_credentials&&) = delete;
  cluster_credentials(const cluster_credentials&) = delete;
  ~cluster_credentials();

 private:
  cluster_credentials() = default;
  std::array<int, 3> pinned_{-1, -1, -1};  // memfds holding ca, cert, key as checked
  std::string subject_;
};

}  // namespace z402::catalog
