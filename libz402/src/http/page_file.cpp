#include "z402/http/page_file.hpp"

#include "z402/http/iov.hpp"

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
  return file;
}

page_file::~page_file() {
  if (fd_ >= 0) ::close(fd_);
}

page_files::entry_ptr page_file_of(page_files& files, std::string_view etag, const response_text& page) {
  return files.get(etag, [&]() -> std::optional<std::pair<page_file, std::size_t>> {
    auto file = page_file::write(page);
    if (!file) return std::nullopt;
    auto size = file->size();
    return std::pair{std::move(*file), size};
  });
}

}  // namespace z402::http
