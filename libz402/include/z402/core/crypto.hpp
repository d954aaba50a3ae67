#pragma once
// The primitives every layer may need (a digest, a MAC, a secret, a comparison that leaks no
// timing), all from OpenSSL 3. The bottom layer: it includes nothing of z402's.
#include <array>
#include <string>
#include <string_view>

namespace z402::crypto {

/// `bytes` as lower-case hex digits, two a byte.
std::string hex(std::string_view bytes);

/// SHA-256 of `data`: 32 raw bytes.
std::array<unsigned char, 32> sha256(std::string_view data);

/// SHA-256 of `data` as a string of its 32 raw bytes (how signed catalogs name their bytes).
std::string sha256_bytes(std::string_view data);

/// SHA-256 of `data` as 64 lower-case hex digits.
std::string sha256_hex(std::string_view data);

/// A new secret: 32 bytes from OpenSSL's CSPRNG, base64url without padding, behind `prefix`
/// (the prefix lets secret scanners recognise a leaked key).
std::string random_key(std::string_view prefix);

/// HMAC-SHA256 of `data` under `key`: 32 raw bytes.
std::string hmac_sha256(std::string_view key, std::string_view data);

/// Ed25519 (RFC 8032), as OpenSSL 3 implements it. A private key is its 32-byte seed, a public
/// key 32 bytes, a signature 64; all raw bytes in strings.
struct ed25519_key_pair {
  std::string seed;        // secret: never logged; cleansed by whoever drops it
  std::string public_key;
};
/// A new key pair from OpenSSL's CSPRNG.
ed25519_key_pair ed25519_generate();
/// The public key of `seed` (32 bytes); std::invalid_argument when it is not 32 bytes.
std::string ed25519_public_key(std::string_view seed);
/// The signature of `message` under `seed`: one-shot EVP_DigestSign with a fresh context.
std::string ed25519_sign(std::string_view seed, std::string_view message);
/// Whether `signature` is `public_key`'s over `message`; false for any malformed input.
bool ed25519_verify(std::string_view public_key, std::string_view message, std::string_view signature);

/// Overwrites `secret` before it is dropped.
void cleanse(std::string& secret);

/// Compares two equal-length strings in time that does not depend on their content.
bool constant_time_equal(std::string_view a, std::string_view b);

}  // namespace z402::crypto
