#pragma once
// What a route answers when a body or a parameter breaks a rule, or a write does not land
// (docs/api.md, "Errors").
#include "z402/error.hpp"
#include "z402/http/message.hpp"

#include <string_view>

namespace z402::routes {

/// 400 invalid_request: `message` for people; details [{field, reason[, item]}] for machines.
http::response invalid_request(const z402::error& e, std::string_view message);

/// The same, the message naming the item and field (error::message()).
inline http::response invalid_request(const z402::error& e) { return invalid_request(e, e.message()); }

/// 503 unavailable: a write that did not land. At a follower it means the primary was not
/// reached, and Retry-After tells the client when to try again.
http::response unavailable_write(bool at_follower, std::string_view why);

}  // namespace z402::routes
