#pragma once
// POST /discovery/declarations, checked field by field (docs/contract.md §2). The first failure
// refuses the whole declaration; on success every item is normalised and carries its identity.
#include "z402/config/rail_terms.hpp"
#include "z402/error.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
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
  std::string key() const {
    std::string k(key_size(type, resource, selector), '\x1f');
    write_key(k.data(), type, resource, selector);
    return k;
  }
  /// The key of these parts is key_size() bytes, written at `out` by write_key(), which returns
  /// the end: a settlement writes it into its own text (settlement.hpp), allocating nothing more.
  static std::size_t key_size(std::string_view type, std::string_view resource, std::string_view selector) {
    return type.size() + resource.size() + selector.size() + 2;
  }
  static char* write_key(char* out, std::string_view type, std::string_view resource, std::string_view selector) {
    out = std::copy(type.begin(), type.end(), out);
    *out++ = '\x1f';
    out = std::copy(resource.begin(), resource.end(), out);
    *out++ = '\x1f';
    return std::copy(selector.begin(), selector.end(), out);
  }
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

/// The declaration's items, checked, resources canonical; or the first rule one broke. It is
/// the three steps below, in this order.
expected<std::vector<declared_item>> validate_declaration(const boost::json::value& body, const declaration_context& ctx);

/// The rules on the body as a whole: an object with only "items", 1 to `ctx.max_items` of them.
expected<const boost::json::array*> declaration_items(const boost::json::value& body, const declaration_context& ctx);

/// Every rule on one item, items[`index`] (the error names it). Its result depends on the item
/// and `ctx` alone: an item checked once need not be checked again under the same context.
expected<declared_item> check_declared_item(const boost::json::value& item, std::size_t index, const declaration_context& ctx);

/// No two items of one declaration share an identity: each item's is added in order.
class declared_identities {
 public:
  expected<void> add(const item_identity& identity, std::size_t index);

 private:
  std::map<std::string, std::size_t> first_index_;
};

}  // namespace z402::rules
