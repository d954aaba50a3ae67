#pragma once
// tools/call messages that come again byte for byte but for their id: an agent's client asks for
// the same page again and again, each time with its next id. Such a message is answered from the
// result kept for the first, without parsing it into a tree, reading its arguments or making the
// result cache's key again: its bytes, but the id, were parsed, checked and answered before at
// this snapshot version, so the same answer stands. Only a result that depends on nothing else
// is remembered (not a search with a cursor, which is redeemed on every call), and only the
// id's own bytes are read: an integer, or a string of printable ASCII without escapes (any other
// id takes the full path, so an answer's id is always written as the full path writes it).
// Per io thread, the last few messages: no lock, and a result held here is let go once its
// version is superseded and the thread answers another message.
#include "routes/etag_cache.hpp"
#include "z402/mcp/protocol.hpp"

#include <cstddef>
#include <optional>
#include <string_view>

namespace z402::routes {

/// Where the value of `message`'s top-level "id" member lies (offset and length), when the
/// message is an object whose top level is walked without reading its values (strings skipped
/// with their escapes, nesting counted) and the value is an integer or a plain string as above;
/// nullopt otherwise (no id, two of them, another kind of id, not an object).
std::optional<std::pair<std::size_t, std::size_t>> plain_id_span(std::string_view message);

/// The result remembered for `message` (its bytes but the id) by `owner` at `now`, with the
/// id's text; nullopt when there is none.
struct repeat {
  mcp::shared_result result;
  std::string_view id;
};
std::optional<repeat> find_repeat(const void* owner, std::string_view message, cache_version now);

/// Remembers that `owner` answered `message` with `result`, made for `made_for`.
void remember_repeat(const void* owner, std::string_view message, cache_version made_for, mcp::shared_result result);

}  // namespace z402::routes
