#pragma once
// The one way libz402 says anything: a record (level, component, message, key fields) handed
// to a sink the embedding program supplies. Nothing in the library writes to stderr or
// stdout; z402-bazaar supplies a text or JSON-lines sink on stderr, a rail node its own.
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace z402::telemetry {

enum class level : std::uint8_t { debug, info, warning, error };

std::string_view to_string(level l);

/// One key field: text or a whole number. Views only: a record lives for one write call.
struct log_field {
  log_field(std::string_view k, std::string_view v) : key(k), text(v) {}
  log_field(std::string_view k, const std::string& v) : key(k), text(v) {}
  log_field(std::string_view k, const char* v) : key(k), text(v) {}
  template <class Int>
    requires std::is_integral_v<Int>
  log_field(std::string_view k, Int n) : key(k), number(static_cast<std::int64_t>(n)), is_number(true) {}

  std::string_view key;
  std::string_view text;
  std::int64_t number = 0;
  bool is_number = false;
};

struct log_record {
  level severity = level::info;
  std::string_view component;  // e.g. "catalog.persistence", "http.access"
  std::string_view message;    // plain words, no trailing newline
  std::span<const log_field> fields;
  std::int64_t time_ms = 0;    // Unix milliseconds, wall clock
};

/// Where records go. `write` may be called from any thread, concurrently.
class log_sink {
 public:
  virtual ~log_sink() = default;
  virtual void write(const log_record& record) = 0;
  /// Pushes out what is buffered (called periodically and at stop).
  virtual void flush() {}
};

/// A component's handle on a sink; a default-constructed logger discards everything.
class logger {
 public:
  logger() = default;
  logger(std::shared_ptr<log_sink> sink, std::string_view component) : sink_(std::move(sink)), component_(component) {}

  /// The same sink under another component name (a string with static storage).
  logger with_component(std::string_view component) const { return {sink_, component}; }

  void log(level severity, std::string_view message, std::initializer_list<log_field> fields = {}) const;
  void info(std::string_view message, std::initializer_list<log_field> fields = {}) const {
    log(level::info, message, fields);
  }
  void warning(std::string_view message, std::initializer_list<log_field> fields = {}) const {
    log(level::warning, message, fields);
  }
  void error(std::string_view message, std::initializer_list<log_field> fields = {}) const {
    log(level::error, message, fields);
  }
  void flush() const {
    if (sink_) sink_->flush();
  }
  explicit operator bool() const { return sink_ != nullptr; }
  const std::shared_ptr<log_sink>& sink() const { return sink_; }

 private:
  std::shared_ptr<log_sink> sink_;
  std::string_view component_;
};

/// Replaces the secret part of every provider or settle key (`z402pk_...`, `z402sk_...`) in
/// `text` with "[redacted]". Sinks apply it to every message and field: a key pasted into a
/// URL path or echoed by a peer never reaches a log.
void redact_keys(std::string& text);

}  // namespace z402::telemetry
