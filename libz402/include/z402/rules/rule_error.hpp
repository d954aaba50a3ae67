#pragma once
// The answer of every rule is a z402::error: invalid_request, the JSON path of the field inside
// the item (or the body), the rule it broke, and for a declaration which item. The HTTP layer
// turns it into 400 {"error":"invalid_request","message":...,"details":[{"item":i,"field":...,"reason":...}]}.
#include "z402/error.hpp"

#include <string>

namespace z402::rules {

/// `field` breaks a rule, for `reason`.
inline error refused(std::string field, std::string reason) {
  return {errc::invalid_request, std::move(field), std::move(reason)};
}

}  // namespace z402::rules
