#pragma once
// A response's bytes as the iovec list that writev and sendmsg take, and what is left of it
// after a partial write.
#include "z402/http/message.hpp"

#include <sys/uio.h>

#include <cstddef>
#include <vector>

namespace z402::http {

/// IOV_MAX on Linux: at most this many buffers per call.
constexpr std::size_t max_iov = 1024;

/// Appends `size` bytes at `data` (nothing when empty).
inline void append_iov(std::vector<iovec>& iov, const void* data, std::size_t size) {
  if (size) iov.push_back({const_cast<void*>(data), size});
}
/// Appends a body's text, pieces and suffix.
void append_iov(std::vector<iovec>& iov, const response_text& body);
/// Drops the first `n` bytes written from `iov`, from the buffer at `at` on; `at` moves past
/// the buffers written whole.
void consume_iov(std::vector<iovec>& iov, std::size_t& at, std::size_t n);

}  // namespace z402::http
