#pragma once
// One line per request: method, path, status, bytes, duration. Never the query string (what an
// agent looks for stays private) and never a header value (keys).
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string_view>

namespace z402::http {

class access_log {
 public:
  /// `out` may be null: logging off. The stream is block-buffered; `flush` runs periodically.
  explicit access_log(std::FILE* out);
  void record(std::string_view method, std::string_view target, unsigned status, std::size_t bytes,
              std::chrono::steady_clock::duration took);
  void flush();

 private:
  std::FILE* out_;
  std::mutex mutex_;
};

/// The path of a request target, without query string or fragment.
std::string_view path_of(std::string_view target);

}  // namespace z402::http
