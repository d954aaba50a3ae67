#pragma once
// POST /discovery/declarations, checked field by field (catalog.md §2). The first failure
// refuses the whole declaration; on success every item is normalised and carries its identity.
#include "z402/config/rail_terms.hpp"
#include "z402/error.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace z402::rules {

constexpr std::size_t max_item_bytes = 128u << 10;

/// Identity of an item inside one provider: (type, canonical resource, method) for HTTP,
/// (type, canonical resource, toolName) for MCP.
struct item_identity {
  std::string type;
  std::string resource;  // canonical
  std::string selector;  // method or toolName
  /// A map key that cannot collide (the unit separator appears in none of the parts).
  std::string key() const { return type + '\x1f' + resource + '\x1f' + selector; }
};

struct declared_item {
  item_identity identity;
  boost::json::object fields;  // the DiscoveryResource fields as stored, resource canonical
};

struct declaration_context {
  const config::rail_terms& terms;
  std::string pay_to;             // the authenticated provider's
  bool allow_http_resources = false;
  std::size_t max_items = 128;    // per provider: a single declaration may not list more
};

/// The declaration's items, checked, resources canonical; or the first rule one broke.
expected<std::vector<declared_item>> validate_declaration(const boost::json::value& body, const declaration_context& ctx);

}  // namespace z402::rules
