#include "z402/telemetry/stream_sink.hpp"

#include "z402/wire/iso_time.hpp"

#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

namespace z402::telemetry {
namespace {

/// One line, whatever the text holds: control characters (a newline from a peer would start a
/// forged line) become '?'.
void append_safe(std::string& out, std::string_view text) {
  for (char c : text) out.push_back(static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? '?' : c);
}

void append_text_value(std::string& out, const log_field& f) {
  if (f.is_number) return out.append(std::to_string(f.number)), void();
  bool quote = f.text.empty() || f.text.find_first_of(" \"=") != std::string_view::npos;
  if (!quote) return append_safe(out, f.text);
  out.push_back('"');
  std::string escaped;
  for (char c : f.text) {
    if (c == '"' || c == '\\') escaped.push_back('\\');
    escaped.push_back(c);
  }
  append_safe(out, escaped);
  out.push_back('"');
}

}  // namespace

std::string format_text(const log_record& record, std::string_view program) {
  std::string line;
  line.reserve(96 + record.message.size());
  line.append(program).append(": ");
  if (record.severity >= level::warning) line.append(to_string(record.severity)).append(": ");
  append_safe(line, record.message);
  for (auto& f : record.fields) {
    line.push_back(' ');
    append_safe(line, f.key);
    line.push_back('=');
    append_text_value(line, f);
  }
  redact_keys(line);
  line.push_back('\n');
  return line;
}

std::string format_json(const log_record& record, std::string_view program) {
  boost::json::object o;
  o["time"] = wire::format_iso_ms(record.time_ms);
  o["level"] = to_string(record.severity);
  o["program"] = program;
  o["component"] = record.component;
  o["message"] = record.message;
  for (auto& f : record.fields) {
    if (f.is_number) o[f.key] = f.number;
    else o[f.key] = f.text;
  }
  auto line = boost::json::serialize(o);  // escapes every control character
  redact_keys(line);
  line.push_back('\n');
  return line;
}

stream_sink::stream_sink(std::FILE* out, log_format format, std::string program)
    : out_(out), format_(format), program_(std::move(program)) {
  std::setvbuf(out_, nullptr, _IOFBF, 1 << 16);
}

void stream_sink::write(const log_record& record) {
  auto line = format_ == log_format::json ? format_json(record, program_) : format_text(record, program_);
  std::lock_guard<std::mutex> guard{mutex_};
  std::fwrite(line.data(), 1, line.size(), out_);
  // Access lines are many and buffered; anything an operator must see now is not.
  if (record.severity != level::debug && record.component != "http.access") std::fflush(out_);
}

void stream_sink::flush() {
  std::lock_guard<std::mutex> guard{mutex_};
  std::fflush(out_);
}

}  // namespace z402::telemetry
