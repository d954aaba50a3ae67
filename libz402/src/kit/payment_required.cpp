#include "z402/kit/payment_required.hpp"

#include <boost/json/array.hpp>
#include <boost/json/serialize.hpp>

namespace z402::kit {
namespace {

namespace json = boost::json;

json::object bazaar_for(const paid_route& route, std::string_view path) {
  auto declared = declare_discovery_extension(route.discovery);
  bool has_params = route.pattern.find(':') != std::string::npos;
  return enrich_for_request(declared.at("bazaar").as_object(), route.method,
                            has_params ? std::optional<std::string_view>{route.pattern} : std::nullopt, path);
}

json::array tags_of(const service_identity& id) {
  json::array tags;
  for (auto& t : id.tags) tags.emplace_back(t);
  return tags;
}

}  // namespace

std::string_view example_path(const paid_route& route) {
  return route.example_path.empty() ? std::string_view{route.pattern} : std::string_view{route.example_path};
}

json::object payment_required(const service_identity& id, const paid_route& route, std::string_view path,
                              std::string_view error) {
  json::object resource{{"url", id.public_url + std::string{path}},
                        {"description", route.description},
                        {"mimeType", route.mime_type}};
  if (!id.service_name.empty()) resource["serviceName"] = id.service_name;
  if (!id.tags.empty()) resource["tags"] = tags_of(id);
  json::object out{{"x402Version", 2}};
  if (!error.empty()) out["error"] = error;
  out["resource"] = std::move(resource);
  out["accepts"] = json::array{config::accepts_entry(id.terms, id.pay_to, route.amount, id.max_timeout_seconds)};
  out["extensions"] = json::object{{"bazaar", bazaar_for(route, path)}, {"z402", json::object{{"unit", route.unit}}}};
  return out;
}

json::object declared_item(const json::object& required) {
  auto& resource = required.at("resource").as_object();
  auto& extensions = required.at("extensions").as_object();
  auto type = extensions.at("bazaar").at("info").at("input").at("type");
  json::object item{{"resource", resource.at("url")}, {"type", type}, {"x402Version", 2}, {"accepts", required.at("accepts")}};
  for (auto key : {"description", "mimeType", "serviceName", "tags"})
    if (auto v = resource.if_contains(key)) item[key] = *v;
  item["extensions"] = extensions;
  return item;
}

json::object declaration(const service_identity& id, const std::vector<paid_route>& routes) {
  json::array items;
  for (auto& r : routes) items.emplace_back(declared_item(payment_required(id, r, example_path(r))));
  return {{"items", std::move(items)}};
}

std::string manifest(const service_identity& id, const std::vector<paid_route>& routes) {
  json::array entries;
  for (auto& r : routes) {
    auto bazaar = bazaar_for(r, example_path(r));
    auto& info = bazaar.at("info").as_object();
    json::object entry{{"method", r.method},
                       {"path", r.pattern},
                       {"url", id.public_url + r.pattern},
                       {"description", r.description},
                       {"mimeType", r.mime_type},
                       {"price", json::object{{"amount", r.amount}, {"asset", id.terms.asset}, {"unit", r.unit}}},
                       {"input", info.at("input")}};
    if (auto out = info.if_contains("output")) entry["output"] = *out;
    entry["schema"] = bazaar.at("schema");
    // What the route's 402 asks, payTo included: the agent binds a listing to its origin by it.
    entry["accepts"] = json::array{config::accepts_entry(id.terms, id.pay_to, r.amount, id.max_timeout_seconds)};
    entries.emplace_back(std::move(entry));
  }
  json::object doc{{"x402Version", 2},
                   {"service", json::object{{"name", id.service_name}, {"url", id.public_url}, {"tags", tags_of(id)}}},
                   {"payment", json::object{{"scheme", id.terms.scheme},
                                            {"network", id.terms.network},
                                            {"asset", id.terms.asset},
                                            {"payTo", id.pay_to},
                                            {"maxTimeoutSeconds", id.max_timeout_seconds},
                                            {"extra", id.terms.extra}}},
                   {"routes", std::move(entries)},
                   {"health", id.public_url + "/health"}};
  return json::serialize(doc);
}

}  // namespace z402::kit
