#include "z402/rules/text.hpp"

#include <algorithm>
#include <cstdint>

namespace z402::rules {
namespace {

// Decodes one code point at s[i]; returns its length, or 0 when the sequence is invalid.
std::size_t decode(std::string_view s, std::size_t i, char32_t& cp) {
  auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  auto cont = [&](std::size_t k) { return i + k < s.size() && (b(k) & 0xC0) == 0x80; };
  unsigned char c = b(0);
  if (c < 0x80) { cp = c; return 1; }
  if (c >= 0xC2 && c <= 0xDF && cont(1)) { cp = ((c & 0x1F) << 6) | (b(1) & 0x3F); return 2; }
  if (c >= 0xE0 && c <= 0xEF && cont(1) && cont(2)) {
    cp = ((c & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
    return (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF)) ? 0 : 3;
  }
  if (c >= 0xF0 && c <= 0xF4 && cont(1) && cont(2) && cont(3)) {
    cp = ((c & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
    return (cp < 0x10000 || cp > 0x10FFFF) ? 0 : 4;
  }
  return 0;
}

bool is_bidi_control(char32_t cp) {
  return cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

}  // namespace

std::size_t utf8_length(std::string_view s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

expected<void> check_shown_text(std::string_view s, std::string field) {
  for (std::size_t i = 0; i < s.size();) {
    char32_t cp = 0;
    auto len = decode(s, i, cp);
    if (len == 0) return refused(std::move(field), "is not valid UTF-8");
    if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F)) return refused(std::move(field), "contains a control character");
    if (is_bidi_control(cp)) return refused(std::move(field), "contains a bidirectional formatting character");
    i += len;
  }
  return {};
}

std::string terminal_safe(std::string_view s) {
  constexpr std::string_view replacement = "\xEF\xBF\xBD";  // U+FFFD
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    char32_t cp = 0;
    auto len = decode(s, i, cp);
    if (len == 0) {
      out += replacement;
      ++i;
      continue;
    }
    bool unsafe = cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) || is_bidi_control(cp);
    if (unsafe) out += replacement;
    else out.append(s.substr(i, len));
    i += len;
  }
  return out;
}

bool is_printable_ascii(std::string_view s, std::size_t max_len) {
  return !s.empty() && s.size() <= max_len &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c <= 0x7E; });
}

}  // namespace z402::rules
