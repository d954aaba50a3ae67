#include "z402/http/access_log.hpp"

namespace z402::http {

std::string_view path_of(std::string_view target) { return target.substr(0, target.find_first_of("?#")); }

void access_log::record(std::string_view method, std::string_view target, unsigned status, std::size_t bytes,
                        std::chrono::steady_clock::duration took) const {
  if (!log_) return;
  auto path = path_of(target);
  // Paths come from the network: cap their length and keep them printable ASCII.
  if (path.size() > 256) path = path.substr(0, 256);
  char safe[256];
  std::size_t n = 0;
  for (char c : path) safe[n++] = (c > 0x20 && c < 0x7f) ? c : '?';
  auto micros = std::chrono::duration_cast<std::chrono::microseconds>(took).count();
  log_.info("request", {{"method", method},
                        {"path", std::string_view{safe, n}},
                        {"status", status},
                        {"bytes", bytes},
                        {"durationUs", micros}});
}

}  // namespace z402::http
