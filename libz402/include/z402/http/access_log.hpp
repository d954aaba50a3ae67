#pragma once
// One record per request through the program's log sink (component "http.access"): method,
// path, status, bytes, duration. Never the query string (what an agent looks for stays
// private) and never a header value (keys).
#include "z402/telemetry/log.hpp"

#include <chrono>
#include <string_view>

namespace z402::http {

class access_log {
 public:
  /// A logger without a sink: logging off.
  explicit access_log(telemetry::logger log) : log_(log.with_component("http.access")) {}
  void record(std::string_view method, std::string_view target, unsigned status, std::size_t bytes,
              std::chrono::steady_clock::duration took) const;
  void flush() const { log_.flush(); }

 private:
  telemetry::logger log_;
};

/// The path of a request target, without query string or fragment.
std::string_view path_of(std::string_view target);

}  // namespace z402::http
