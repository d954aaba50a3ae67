#include "z402/core/crypto.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <array>
#include <memory>
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

std::string sha256_bytes(std::string_view data) {
  auto digest = sha256(data);
  return {reinterpret_cast<const char*>(digest.data()), digest.size()};
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

namespace {

using pkey_ptr = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using md_ctx_ptr = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;

const unsigned char* bytes_of(std::string_view s) { return reinterpret_cast<const unsigned char*>(s.data()); }

pkey_ptr private_key_of(std::string_view seed) {
  if (seed.size() != 32) throw std::invalid_argument("an Ed25519 private key is 32 bytes");
  pkey_ptr key{EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr, bytes_of(seed), seed.size()), &EVP_PKEY_free};
  if (!key) throw std::runtime_error("OpenSSL could not load an Ed25519 key");
  return key;
}

}  // namespace

ed25519_key_pair ed25519_generate() {
  ed25519_key_pair pair;
  pair.seed.resize(32);
  if (RAND_bytes(reinterpret_cast<unsigned char*>(pair.seed.data()), 32) != 1)
    throw std::runtime_error("the CSPRNG failed to produce a key");
  pair.public_key = ed25519_public_key(pair.seed);
  return pair;
}

std::string ed25519_public_key(std::string_view seed) {
  auto key = private_key_of(seed);
  std::string out(32, '\0');
  std::size_t len = out.size();
  if (EVP_PKEY_get_raw_public_key(key.get(), reinterpret_cast<unsigned char*>(out.data()), &len) != 1 || len != 32)
    throw std::runtime_error("OpenSSL could not derive an Ed25519 public key");
  return out;
}

std::string ed25519_sign(std::string_view seed, std::string_view message) {
  // Ed25519 hashes inside the signature (PureEdDSA): no digest is named, and the message is
  // given whole to one EVP_DigestSign; a context signs once and is freed.
  auto key = private_key_of(seed);
  md_ctx_ptr ctx{EVP_MD_CTX_new(), &EVP_MD_CTX_free};
  std::string sig(64, '\0');
  std::size_t len = sig.size();
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1 ||
      EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &len, bytes_of(message), message.size()) != 1 ||
      len != 64)
    throw std::runtime_error("Ed25519 signing failed");
  return sig;
}

bool ed25519_verify(std::string_view public_key, std::string_view message, std::string_view signature) {
  if (public_key.size() != 32 || signature.size() != 64) return false;
  pkey_ptr key{EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, bytes_of(public_key), public_key.size()), &EVP_PKEY_free};
  md_ctx_ptr ctx{EVP_MD_CTX_new(), &EVP_MD_CTX_free};
  if (!key || !ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1) return false;
  return EVP_DigestVerify(ctx.get(), bytes_of(signature), signature.size(), bytes_of(message), message.size()) == 1;
}

void cleanse(std::string& secret) {
  OPENSSL_cleanse(secret.data(), secret.size());
  secret.clear();
}

bool constant_time_equal(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace z402::crypto
