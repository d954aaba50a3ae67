#include "z402/wire/base64.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <cctype>

namespace z402::wire {

std::string base64_encode(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3), '\0');
  auto n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                           reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

std::string base64url_encode(std::string_view bytes) {
  auto out = base64_encode(bytes);
  while (!out.empty() && out.back() == '=') out.pop_back();
  for (auto& c : out) c = c == '+' ? '-' : c == '/' ? '_' : c;
  return out;
}

namespace {

/// The six bits a standard base64 character stands for; the caller has checked the alphabet.
unsigned sextet(unsigned char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  return c == '+' ? 62 : 63;
}

/// Decodes padded standard base64: length a multiple of 4, only the alphabet and '=' at the end,
/// and canonical. RFC 4648 §3.5 lets a decoder refuse padding bits that are not zero; we do, so
/// each byte string has exactly one text: a search cursor changed in its last character is
/// refused, not read as the cursor it was.
std::optional<std::string> decode_padded(std::string_view padded) {
  if (padded.size() % 4) return std::nullopt;
  auto pad = padded.size() - std::min(padded.find_last_not_of('=') + 1, padded.size());
  if (pad > 2) return std::nullopt;
  for (std::size_t i = 0; i < padded.size() - pad; ++i) {
    auto c = static_cast<unsigned char>(padded[i]);
    if (!std::isalnum(c) && c != '+' && c != '/') return std::nullopt;
  }
  // One '=' leaves two bits of the last character unused, two leave four.
  if (pad && (sextet(static_cast<unsigned char>(padded[padded.size() - pad - 1])) & (pad == 1 ? 0x3u : 0xfu)))
    return std::nullopt;
  std::string out(padded.size() / 4 * 3, '\0');
  auto n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                           reinterpret_cast<const unsigned char*>(padded.data()), static_cast<int>(padded.size()));
  if (n < 0) return std::nullopt;
  out.resize(static_cast<std::size_t>(n) - pad);  // DecodeBlock counts padding as zeros
  return out;
}

}  // namespace

std::optional<std::string> base64_decode(std::string_view text) { return decode_padded(text); }

std::optional<std::string> base64url_decode(std::string_view text) {
  if (text.size() % 4 == 1) return std::nullopt;
  std::string padded{text};
  for (auto& c : padded) {
    if (c == '-') c = '+';
    else if (c == '_') c = '/';
    else if (c == '+' || c == '/' || c == '=') return std::nullopt;
  }
  while (padded.size() % 4) padded.push_back('=');
  return decode_padded(padded);
}

}  // namespace z402::wire
