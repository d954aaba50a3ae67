#include "z402/rules/declaration.hpp"

#include "rules/bazaar_extension.hpp"
#include "rules/item_fields.hpp"

#include <boost/json/serialize.hpp>

namespace z402::rules {
namespace {

// The optional DiscoveryResource fields, in the order they are stored and served.
struct optional_field {
  const char* name;
  expected<void> (*check)(const boost::json::value&);
};
constexpr optional_field optional_fields[] = {
    {"description", check_description}, {"mimeType", check_mime_type}, {"serviceName", check_service_name},
    {"tags", check_tags},               {"iconUrl", check_icon_url},
};

bool is_known_item_field(std::string_view key) {
  for (auto k : {"resource", "type", "x402Version", "accepts", "extensions"})
    if (key == k) return true;
  for (auto& f : optional_fields)
    if (key == f.name) return true;
  return false;
}

/// An item without a bazaar extension: an HTTP route is a GET; an MCP item has no tool name.
expected<void> without_bazaar(const std::string& type, bazaar_facts& facts) {
  if (type == "mcp") return refused("extensions.bazaar", "is required for an MCP item (it names the tool)");
  facts.method = "GET";
  return {};
}

expected<void> check_extensions(const boost::json::value* v, const std::string& type,
                                            bazaar_facts& facts) {
  if (!v) return without_bazaar(type, facts);
  auto* obj = v->if_object();
  if (!obj) return refused("extensions", "must be an object");
  for (auto& kv : *obj)
    if (kv.key() != "bazaar" && kv.key() != "z402")
      return refused("extensions." + std::string{kv.key()}, "is not an extension the catalog lists (bazaar, z402)");
  if (auto* z = obj->if_contains("z402"))
    if (auto e = check_z402_extension(*z); !e) return e;
  auto* bazaar = obj->if_contains("bazaar");
  if (!bazaar) return without_bazaar(type, facts);
  if (auto e = check_bazaar_extension(*bazaar, route_template_policy::refuse_invalid, facts); !e) return e;
  if (facts.input_type != type)
    return refused("extensions.bazaar.info.input.type", "must equal the item's type \"" + type + "\"");
  return {};
}

expected<void> check_item(const boost::json::value& v, const declaration_context& ctx,
                                      declared_item& out) {
  auto* obj = v.if_object();
  if (!obj) return refused("", "must be an object");
  for (auto& kv : *obj)
    if (!is_known_item_field(kv.key())) return refused(std::string{kv.key()}, "is not a field of a declared item");
  auto* resource = obj->if_contains("resource");
  if (!resource) return refused("resource", "is required");
  wire::url_parts url;
  if (auto e = check_resource(*resource, ctx.allow_http_resources, url); !e) return e;
  auto* type = obj->if_contains("type");
  if (!type || !type->is_string() || (type->as_string() != "http" && type->as_string() != "mcp"))
    return refused("type", "must be http or mcp");
  std::string item_type{type->as_string().c_str()};
  auto* version = obj->if_contains("x402Version");
  if (!version || !((version->is_int64() && version->as_int64() == 2) || (version->is_uint64() && version->as_uint64() == 2)))
    return refused("x402Version", "must be 2");
  auto* accepts = obj->if_contains("accepts");
  if (!accepts || !accepts->is_array() || accepts->as_array().size() < min_accepts ||
      accepts->as_array().size() > max_accepts)
    return refused("accepts", "must be an array of " + std::to_string(min_accepts) + " to " + std::to_string(max_accepts) + " entries");
  for (std::size_t i = 0; i < accepts->as_array().size(); ++i)
    if (auto e = check_accepts_entry(accepts->as_array()[i], "accepts[" + std::to_string(i) + "]", ctx.terms, ctx.pay_to); !e)
      return e;
  bazaar_facts facts;
  auto* extensions = obj->if_contains("extensions");
  if (auto e = check_extensions(extensions, item_type, facts); !e) return e;

  auto canonical = wire::canonical_resource(url, facts.route_template);
  out.identity = {item_type, canonical, item_type == "mcp" ? facts.tool_name : facts.method};
  out.fields = {{"resource", canonical}, {"type", item_type}, {"x402Version", 2}, {"accepts", *accepts}};
  for (auto& f : optional_fields) {
    if (auto* fv = obj->if_contains(f.name)) {
      if (auto e = f.check(*fv); !e) return e;
      out.fields[f.name] = *fv;
    }
  }
  if (extensions) out.fields["extensions"] = *extensions;
  if (boost::json::serialize(out.fields).size() > max_item_bytes)
    return refused("", "may serialise to at most " + std::to_string(max_item_bytes) + " bytes");
  return {};
}

}  // namespace

expected<const boost::json::array*> declaration_items(const boost::json::value& body, const declaration_context& ctx) {
  auto* obj = body.if_object();
  if (!obj) return refused("", "the body must be a JSON object {\"items\":[...]}");
  for (auto& kv : *obj)
    if (kv.key() != "items") return refused(std::string{kv.key()}, "is not a field of a declaration");
  auto* items = obj->if_contains("items");
  if (!items || !items->is_array()) return refused("items", "is required and must be an array");
  auto& arr = items->as_array();
  if (arr.empty()) return refused("items", "must list at least one item");
  if (arr.size() > ctx.max_items)
    return refused("items", "a provider may list at most " + std::to_string(ctx.max_items) + " items");
  return &arr;
}

expected<declared_item> check_declared_item(const boost::json::value& item, std::size_t index, const declaration_context& ctx) {
  declared_item checked;
  if (auto e = check_item(item, ctx, checked); !e) {
    auto refusal = e.error();
    refusal.item = index;
    return refusal;
  }
  return checked;
}

expected<void> declared_identities::add(const item_identity& identity, std::size_t index) {
  auto [it, fresh] = first_index_.emplace(identity.key(), index);
  if (fresh) return {};
  auto e = refused("resource", "has the same identity (type, canonical resource, method or toolName) as item " +
                                   std::to_string(it->second));
  e.item = index;
  return e;
}

expected<std::vector<declared_item>> validate_declaration(const boost::json::value& body, const declaration_context& ctx) {
  auto items = declaration_items(body, ctx);
  if (!items) return items.error();
  declared_identities identities;
  std::vector<declared_item> checked;
  checked.reserve((*items)->size());
  for (std::size_t i = 0; i < (*items)->size(); ++i) {
    auto item = check_declared_item((**items)[i], i, ctx);
    if (!item) return item.error();
    if (auto e = identities.add(item->identity, i); !e) return e.error();
    checked.push_back(std::move(*item));
  }
  return checked;
}

}  // namespace z402::rules
