#pragma once
// The typed answer of every rule: which item, which field, why. The HTTP layer turns it into
// 400 {"error":"invalid_request","message":...,"details":[{"item":i,"field":...,"reason":...}]}.
#include <cstddef>
#include <optional>
#include <string>

namespace z402::rules {

struct rule_error {
  std::optional<std::size_t> item;  // index in the declaration's items, when one item failed
  std::string field;                // JSON path inside the item (or the body), e.g. "accepts[0].payTo"
  std::string reason;               // what rule it broke, in plain words

  /// One line for people and logs: "items[2].accepts[0].payTo: must be ...".
  std::string message() const;
};

/// A field-level failure before the item index is known.
struct field_error {
  std::string field;
  std::string reason;
};

}  // namespace z402::rules
