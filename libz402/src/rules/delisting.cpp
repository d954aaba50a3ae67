#include "rules/delisting.hpp"

#include "wire/url.hpp"

#include <boost/json.hpp>

#include <algorithm>

namespace z402::rules {
namespace {

error refused_at(std::optional<std::size_t> item, std::string field, std::string reason) {
  auto e = refused(std::move(field), std::move(reason));
  e.item = item;
  return e;
}

}  // namespace

expected<delisting> read_delisting(const boost::json::value& body, std::size_t max_items) {
  auto* o = body.if_object();
  if (!o) return refused_at(std::nullopt, "", "the body must be a JSON object: {\"items\":[...]} or {\"all\":true}");
  auto* all = o->if_contains("all");
  auto* items = o->if_contains("items");
  for (auto& kv : *o)
    if (kv.key() != "all" && kv.key() != "items") return refused_at(std::nullopt, kv.key(), "is not a delisting field");
  if (all && items) return refused_at(std::nullopt, "all", "name items or all, not both");
  if (all) {
    if (!all->is_bool() || !all->as_bool()) return refused_at(std::nullopt, "all", "must be true");
    delisting d;
    d.all = true;
    return d;
  }
  if (!items || !items->is_array() || items->as_array().empty())
    return refused_at(std::nullopt, "items", "must be a non-empty array of {type, resource, method or toolName}");
  if (items->as_array().size() > max_items)
    return refused_at(std::nullopt, "items", "may name at most " + std::to_string(max_items) + " items");
  delisting d;
  for (std::size_t i = 0; i < items->as_array().size(); ++i) {
    auto* entry = items->as_array()[i].if_object();
    if (!entry) return refused_at(i, "", "must be an object {type, resource, method or toolName}");
    for (auto& kv : *entry)
      if (kv.key() != "type" && kv.key() != "resource" && kv.key() != "method" && kv.key() != "toolName")
        return refused_at(i, kv.key(), "is not part of an item's identity");
    auto type = entry->if_contains("type");
    if (!type || !type->is_string() || (type->as_string() != "http" && type->as_string() != "mcp"))
      return refused_at(i, "type", "must be http or mcp");
    auto resource = entry->if_contains("resource");
    if (!resource || !resource->is_string()) return refused_at(i, "resource", "is required: the URL the listing shows");
    auto canonical = wire::canonical_resource_of(resource->as_string(), std::nullopt);
    if (!canonical) return refused_at(i, "resource", canonical.error().reason);
    item_identity id{type->as_string().c_str(), std::move(*canonical), {}};
    auto* method = entry->if_contains("method");
    auto* tool = entry->if_contains("toolName");
    if (id.type == "mcp") {
      if (method) return refused_at(i, "method", "an MCP item is named by its toolName");
      if (!tool || !tool->is_string() || tool->as_string().empty()) return refused_at(i, "toolName", "is required for an MCP item");
      id.selector = tool->as_string().c_str();
    } else {
      if (tool) return refused_at(i, "toolName", "an HTTP item is named by its method");
      if (method && (!method->is_string() || method->as_string().empty())) return refused_at(i, "method", "must be an HTTP method");
      id.selector = method ? std::string{method->as_string().c_str()} : "GET";
      std::transform(id.selector.begin(), id.selector.end(), id.selector.begin(),
                     [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    }
    d.items.push_back(std::move(id));
  }
  return d;
}

}  // namespace z402::rules
