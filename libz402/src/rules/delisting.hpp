#pragma once
// The body of DELETE /discovery/declarations: the provider's own items to remove, by the
// identity a listing shows ({"type","resource","method"} or {"type","resource","toolName"}),
// or {"all": true}. Pure: the provider it applies to comes from the key.
#include "z402/rules/declaration.hpp"
#include "z402/error.hpp"

#include <boost/json/value.hpp>

#include <optional>
#include <vector>

namespace z402::rules {

struct delisting {
  bool all = false;
  std::vector<item_identity> items;
};

/// At most `max_items` identities (a provider lists no more). A refused body removes nothing.
expected<delisting> read_delisting(const boost::json::value& body, std::size_t max_items);

}  // namespace z402::rules
