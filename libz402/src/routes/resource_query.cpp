#include "routes/resource_query.hpp"

#include "wire/url.hpp"

namespace z402::routes {

expected<std::string> render_resource(const catalog::snapshot& snap, std::string_view query_string) {
  auto params = parse_query(query_string);
  if (!params) return params.error();
  return render_resource(snap, *params);
}

expected<std::string> render_resource(const catalog::snapshot& snap, const query_params& params, shown_items* shown) {
  auto invalid = [](std::string field, std::string reason) { return error{errc::invalid_filter, std::move(field), std::move(reason)}; };
  auto param = [&](const char* name) -> const std::string* {
    auto it = params.find(name);
    return it == params.end() || it->second.empty() ? nullptr : &it->second;
  };
  auto* type = param("type");
  if (!type || (*type != "http" && *type != "mcp")) return invalid("type", "parameter type is required: http or mcp");
  auto* url = param("url");
  if (!url) return invalid("url", "parameter url is required");
  auto resource = wire::canonical_resource_of(*url, std::nullopt);
  if (!resource) return invalid("url", "parameter url " + resource.error().reason);
  std::string selector;
  if (*type == "mcp") {
    auto* tool = param("toolName");
    if (!tool) return invalid("toolName", "parameter toolName is required for type=mcp");
    selector = *tool;
  } else {
    auto* method = param("method");
    selector = method ? *method : "GET";  // an item's method is GET unless it says otherwise
  }
  auto found = snap.identity_index_of().positions(snap.items, *type, *resource, selector);
  if (found.empty()) return error{errc::not_found, "", "no provider lists " + *type + " " + *resource + " " + selector};
  std::string out = R"({"x402Version":2,"resources":[)";
  if (shown)
    for (auto p : found) shown->push_back(snap.items[p].get());
  // Each listing with its 30 days' counts, oldest first, the last the day its paidCallsToday is of.
  for (std::size_t i = 0; i < found.size(); ++i) {
    if (i) out.push_back(',');
    append_with_days(out, *snap.items[found[i]]);
  }
  out.append("]}");
  return out;
}

}  // namespace z402::routes
