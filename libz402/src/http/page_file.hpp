#pragma once
// A rendered page in a file of its own (memfd: memory, no disk), for plain TCP answers to send
// with sendfile, and mapped for TLS answers to encrypt from where the bytes are. With sendfile
// the socket takes references to the file's pages instead of copying the bytes from the
// snapshot's items: the copy was 38 % of the server's time for a page of 100
// items (150 KB), and what kept it at three quarters of nginx sending the same bytes from its
// page cache (benchmarks/results/profile.md). The file is written once and never again: pages
// still in flight in the kernel keep their bytes even once the file is closed.
#include "z402/http/message.hpp"

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <optional>
#include <string_view>
#include <utility>

namespace z402::http {

class page_file {
 public:
  /// A file holding the page's bytes (its text, pieces and suffix); nothing when the system
  /// will not give one (out of file descriptors or memory): the page is then sent as rendered.
  static std::optional<page_file> write(const response_text& page);

  page_file(page_file&& other) noexcept
      : fd_(std::exchange(other.fd_, -1)), size_(other.size_), map_(std::exchange(other.map_, nullptr)) {}
  page_file& operator=(page_file&& other) noexcept {
    std::swap(fd_, other.fd_);
    std::swap(size_, other.size_);
    std::swap(map_, other.map_);
    return *this;
  }
  page_file(const page_file&) = delete;
  ~page_file();

  int fd() const { return fd_; }
  std::size_t size() const { return size_; }
  /// The file's bytes, mapped read-only: a page's pages are in memory once, for sendfile and
  /// for this view alike (touched through the view, they count in the process's RSS as shared).
  std::string_view bytes() const { return {map_, size_}; }

 private:
  page_file(int fd, std::size_t size) : fd_(fd), size_(size) {}
  int fd_;
  std::size_t size_;
  const char* map_ = nullptr;
};

}  // namespace z402::http
