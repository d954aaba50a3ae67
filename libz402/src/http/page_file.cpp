#include "http/page_file.hpp"

#include "http/iov.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <stdexcept>

namespace z402::http {

std::optional<page_file> page_file::write(const response_text& page) {
  int fd = ::memfd_create("z402-page", MFD_CLOEXEC);
  if (fd < 0) return std::nullopt;
  page_file file{fd, static_cast<std::size_t>(page.payload_size())};
  std::vector<iovec> iov;
  iov.reserve(page.pieces.size() + 2);
  append_iov(iov, page);
  for (std::size_t at = 0; at < iov.size();) {
    auto n = ::writev(fd, iov.data() + at, static_cast<int>(std::min(iov.size() - at, max_iov)));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;  // out of memory for the file: closed with it
    consume_iov(iov, at, static_cast<std::size_t>(n));
  }
  return file;
}

page_file::~page_file() {
  if (fd_ >= 0) ::close(fd_);
}

ssize_t page_file::read_at(char* out, std::size_t size, std::size_t offset) const {
  for (;;) {
    auto n = ::pread(fd_, out, size, static_cast<off_t>(offset));
    if (n >= 0 || errno != EINTR) return n;
  }
}

std::string page_file::read() const {
  std::string out(size_, '\0');
  for (std::size_t at = 0; at < size_;) {
    auto n = read_at(out.data() + at, size_ - at, at);
    if (n <= 0) throw std::runtime_error("a page file could not be read");
    at += static_cast<std::size_t>(n);
  }
  return out;
}

}  // namespace z402::http
