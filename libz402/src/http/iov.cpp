#include "http/iov.hpp"

#include <algorithm>

namespace z402::http {

void append_iov(std::vector<iovec>& iov, const response_text& body) {
  append_iov(iov, body.data(), body.size());
  for (auto& p : body.pieces) append_iov(iov, p.data(), p.size());
  append_iov(iov, body.suffix.data(), body.suffix.size());
}

void consume_iov(std::vector<iovec>& iov, std::size_t& at, std::size_t n) {
  while (n > 0) {
    auto& v = iov[at];
    auto used = std::min(n, v.iov_len);
    v.iov_base = static_cast<char*>(v.iov_base) + used;
    v.iov_len -= used;
    n -= used;
    if (v.iov_len == 0) ++at;
  }
}

}  // namespace z402::http
