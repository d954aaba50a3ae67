#pragma once
// GET /discovery/resource (docs/contract.md §4): every provider's item with one identity (type,
// canonical resource, method or toolName), on the snapshot the list serves.
#include "z402/catalog/snapshot.hpp"
#include "routes/list_query.hpp"

#include <string>
#include <string_view>

namespace z402::routes {

/// The items with the identity the query names; invalid_filter naming the parameter, or
/// not_found when no provider lists it.
expected<std::string> render_resource(const catalog::snapshot& snap, std::string_view query_string);
/// The same from parameters already decoded (the MCP tool passes its arguments here).
expected<std::string> render_resource(const catalog::snapshot& snap, const query_params& params,
                                      shown_items* shown = nullptr);

}  // namespace z402::routes
