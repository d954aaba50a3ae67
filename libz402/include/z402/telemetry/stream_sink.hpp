#pragma once
// The two sinks z402's programs write to a stream with (stderr): text lines for people and
// JSON lines for log shippers. Lines are built whole and written under one lock, so threads
// never interleave. The stream is block-buffered: access lines (many) wait for flush(), which
// the server calls every 250 ms; every other line is flushed at once.
#include "z402/telemetry/log.hpp"

#include <cstdio>
#include <mutex>

namespace z402::telemetry {

enum class log_format { text, json };

class stream_sink final : public log_sink {
 public:
  /// `program` starts every text line ("z402-bazaar: ...") and is the "program" field of JSON.
  stream_sink(std::FILE* out, log_format format, std::string program);
  void write(const log_record& record) override;
  void flush() override;

 private:
  std::FILE* out_;
  log_format format_;
  std::string program_;
  std::mutex mutex_;
};

/// A text line: "z402-bazaar: <message> key=value ..." (warnings and errors say so after the
/// program name; values with spaces are quoted; control characters become '?').
std::string format_text(const log_record& record, std::string_view program);
/// A JSON object on one line: time, level, program, component, message and the fields.
std::string format_json(const log_record& record, std::string_view program);

}  // namespace z402::telemetry
