#include "z402/telemetry/log.hpp"

#include <chrono>

namespace z402::telemetry {

std::string_view to_string(level l) {
  switch (l) {
    case level::debug: return "debug";
    case level::info: return "info";
    case level::warning: return "warning";
    case level::error: return "error";
  }
  return "info";
}

void logger::log(level severity, std::string_view message, std::initializer_list<log_field> fields) const {
  if (!sink_) return;
  auto now = std::chrono::system_clock::now().time_since_epoch();
  sink_->write({severity, component_, message, {fields.begin(), fields.size()},
                std::chrono::duration_cast<std::chrono::milliseconds>(now).count()});
}

void redact_keys(std::string& text) {
  // Keys are a prefix and 43 base64url characters (crypto::random_key).
  for (std::string_view prefix : {"z402pk_", "z402sk_"}) {
    for (auto at = text.find(prefix); at != std::string::npos; at = text.find(prefix, at + 1)) {
      auto secret = at + prefix.size();
      auto end = secret;
      while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '-' || text[end] == '_'))
        ++end;
      if (end > secret) text.replace(secret, end - secret, "[redacted]");
    }
  }
}

}  // namespace z402::telemetry
