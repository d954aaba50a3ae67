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

/// SHA-256 of `data` as 64 lower-case hex digits.
std::string sha256_hex(std::string_view data);

/// A new secret: 32 bytes from OpenSSL's CSPRNG, base64url without padding, behind `prefix`
/// (the prefix lets secret scanners recognise a leaked key).
std::string random_key(std::string_view prefix);

/// HMAC-SHA256 of `data` under `key`: 32 raw bytes.
std::string hmac_sha256(std::string_view key, std::string_view data);

/// Compares two equal-length strings in time that does not depend on their content.
bool constant_time_equal(std::string_view a, std::string_view b);

}  // namespace z402::crypto
