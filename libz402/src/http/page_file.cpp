#include "http/page_file.hpp"

#include "http/iov.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

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
  void* map = ::mmap(nullptr, file.size_, PROT_READ, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) return std::nullopt;  // out of address space or mappings: closed with it
  file.map_ = static_cast<const char*>(map);
  return file;
}

page_file::~page_file() {
  if (map_) ::munmap(const_cast<char*>(map_), size_);
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace z402::http
