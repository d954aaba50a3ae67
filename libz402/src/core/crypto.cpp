#include "z402/core/crypto.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <array>
#include <stdexcept>

namespace z402::crypto {

std::string hex(std::string_view bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 0xF]);
  }
  return out;
}

std::array<unsigned char, 32> sha256(std::string_view data) {
  // Fetched once: OpenSSL 3 looks the implementation up again on every call given EVP_sha256()
  // (a third of the time of a short digest; every settle names its payment with one).
  static EVP_MD* const md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  std::array<unsigned char, 32> digest{};
  unsigned int len = 0;
  if (!md || EVP_Digest(data.data(), data.size(), digest.data(), &len, md, nullptr) != 1 || len != digest.size())
    throw std::runtime_error("SHA-256 failed");
  return digest;
}

std::string sha256_hex(std::string_view data) {
  auto digest = sha256(data);
  return hex({reinterpret_cast<const char*>(digest.data()), digest.size()});
}

std::string random_key(std::string_view prefix) {
  std::array<unsigned char, 32> bytes{};
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1)
    throw std::runtime_error("the CSPRNG failed to produce a key");
  static constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out{prefix};
  unsigned buffer = 0;
  int bits = 0;
  for (auto b : bytes) {
    buffer = (buffer << 8) | b;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out.push_back(alphabet[(buffer >> bits) & 0x3F]);
    }
  }
  if (bits > 0) out.push_back(alphabet[(buffer << (6 - bits)) & 0x3F]);
  OPENSSL_cleanse(bytes.data(), bytes.size());
  return out;
}

std::string hmac_sha256(std::string_view key, std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> mac{};
  unsigned int len = 0;
  if (!HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
            data.size(), mac.data(), &len))
    throw std::runtime_error("HMAC-SHA256 failed");
  return std::string(reinterpret_cast<const char*>(mac.data()), len);
}

bool constant_time_equal(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace z402::crypto
