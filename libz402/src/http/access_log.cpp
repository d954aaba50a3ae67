#include "z402/http/access_log.hpp"

#include <cinttypes>

namespace z402::http {

std::string_view path_of(std::string_view target) { return target.substr(0, target.find_first_of("?#")); }

access_log::access_log(std::FILE* out) : out_(out) {
  if (out_) std::setvbuf(out_, nullptr, _IOFBF, 1 << 16);
}

void access_log::record(std::string_view method, std::string_view target, unsigned status, std::size_t bytes,
                        std::chrono::steady_clock::duration took) {
  if (!out_) return;
  auto path = path_of(target);
  // Paths come from the network: cap their length and keep them on one line.
  if (path.size() > 256) path = path.substr(0, 256);
  char safe[257];
  std::size_t n = 0;
  for (char c : path) safe[n++] = (c > 0x20 && c < 0x7f) ? c : '?';
  auto micros = std::chrono::duration_cast<std::chrono::microseconds>(took).count();
  std::lock_guard<std::mutex> guard{mutex_};
  std::fprintf(out_, "%.*s %.*s %u %zu %" PRId64 ".%03" PRId64 "ms\n", static_cast<int>(method.size()), method.data(),
               static_cast<int>(n), safe, status, bytes, static_cast<std::int64_t>(micros / 1000),
               static_cast<std::int64_t>(micros % 1000));
}

void access_log::flush() {
  if (!out_) return;
  std::lock_guard<std::mutex> guard{mutex_};
  std::fflush(out_);
}

}  // namespace z402::http
