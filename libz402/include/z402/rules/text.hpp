#pragma once
// Text rules shared by every field that a provider or payer writes and a person later reads.
#include "z402/error.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace z402::rules {

/// Code points in valid UTF-8 (the JSON parser has already refused invalid UTF-8).
std::size_t utf8_length(std::string_view s);

/// `s` may be shown to people, or `field` is refused for what it holds: invalid UTF-8, a control
/// character (C0, DEL, C1) or a bidirectional formatting character (LRM/RLM/ALM, embeddings,
/// overrides, isolates).
expected<void> check_shown_text(std::string_view s, std::string field);

/// `s` with everything a terminal would act on replaced by U+FFFD: invalid UTF-8, control
/// characters (C0 including ESC and newlines, DEL, C1) and bidirectional formatting characters.
std::string terminal_safe(std::string_view s);

/// 1..max_len characters, each printable ASCII (0x20-0x7e).
bool is_printable_ascii(std::string_view s, std::size_t max_len);

}  // namespace z402::rules
