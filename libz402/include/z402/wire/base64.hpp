#pragma once
// Standard RFC 4648 base64 with padding, as x402 headers carry JSON (bazaar-wire.md §4).
#include <string>
#include <string_view>

namespace z402::wire {

std::string base64_encode(std::string_view bytes);

}  // namespace z402::wire
