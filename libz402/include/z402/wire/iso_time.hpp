#pragma once
// Timestamps on the wire are ISO-8601 UTC strings with milliseconds ("2026-10-28T12:34:56.789Z"):
// the Go client fails on numbers. Inside the engine a time is milliseconds since the Unix epoch.
#include "z402/error.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace z402::wire {

constexpr std::int64_t ms_per_day = 86'400'000;

/// Formats milliseconds since the epoch as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
std::string format_iso_ms(std::int64_t ms);

/// The same text appended to `out`, with no string of its own.
void append_iso_ms(std::string& out, std::int64_t ms);

/// Parses exactly the format that `format_iso_ms` writes; invalid_request with the reason
/// otherwise (the caller names the field).
expected<std::int64_t> parse_iso_ms(std::string_view text);

/// The UTC day number (days since 1970-01-01) of a time.
constexpr std::int64_t utc_day(std::int64_t ms) {
  return ms >= 0 ? ms / ms_per_day : (ms - ms_per_day + 1) / ms_per_day;
}

}  // namespace z402::wire
