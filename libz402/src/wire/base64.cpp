#include "z402/wire/base64.hpp"

#include <openssl/evp.h>

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

std::optional<std::string> base64url_decode(std::string_view text) {
  if (text.size() % 4 == 1) return std::nullopt;
  std::string padded{text};
  for (auto& c : padded) {
    if (c == '-') c = '+';
    else if (c == '_') c = '/';
    else if (!std::isalnum(static_cast<unsigned char>(c))) return std::nullopt;
  }
  while (padded.size() % 4) padded.push_back('=');
  std::string out(padded.size() / 4 * 3, '\0');
  auto n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                           reinterpret_cast<const unsigned char*>(padded.data()), static_cast<int>(padded.size()));
  if (n < 0) return std::nullopt;
  out.resize(static_cast<std::size_t>(n) - (padded.size() - text.size()));  // DecodeBlock counts padding as zeros
  return out;
}

}  // namespace z402::wire
