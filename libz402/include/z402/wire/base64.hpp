#pragma once
// Standard RFC 4648 base64 with padding, as x402 headers carry JSON (docs/wire.md §4).
#include <optional>
#include <string>
#include <string_view>

namespace z402::wire {

std::string base64_encode(std::string_view bytes);
/// nullopt when `text` is not canonical padded standard base64 (padding bits zero).
std::optional<std::string> base64_decode(std::string_view text);

/// URL-safe base64 without padding (RFC 4648 §5), for tokens in query strings.
std::string base64url_encode(std::string_view bytes);
/// nullopt when `text` is not canonical URL-safe base64.
std::optional<std::string> base64url_decode(std::string_view text);

}  // namespace z402::wire
