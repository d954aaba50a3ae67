#define CAF_SUITE kit
#include "test.hpp"

#include "z402/kit/bazaar_builder.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

using namespace z402;
using boost::json::object;
using boost::json::value;

namespace {

/// JSON with every object's keys in sorted order: "byte-for-byte after key sorting".
std::string sorted(const value& v) {
  if (v.is_object()) {
    std::vector<std::string_view> keys;
    for (auto& [k, _] : v.get_object()) keys.push_back(k);
    std::sort(keys.begin(), keys.end());
    std::string out = "{";
    for (auto k : keys) {
      if (out.size() > 1) out += ',';
      out += boost::json::serialize(value{k}) + ':' + sorted(v.get_object().at(k));
    }
    return out + '}';
  }
  if (v.is_array()) {
    std::string out = "[";
    for (auto& e : v.get_array()) {
      if (out.size() > 1) out += ',';
      out += sorted(e);
    }
    return out + ']';
  }
  return boost::json::serialize(v);
}

template <class T>
std::optional<T> field(const object& o, std::string_view key) {
  auto v = o.if_contains(key);
  if (!v) return std::nullopt;
  if constexpr (std::is_same_v<T, std::string>) return std::string{v->as_string()};
  else if constexpr (std::is_same_v<T, object>) return v->as_object();
  else return *v;
}

std::optional<kit::output_spec> output_of(const object& config) {
  auto out = field<object>(config, "output");
  if (!out) return std::nullopt;
  return kit::output_spec{out->contains("example") ? out->at("example") : value{}, field<object>(*out, "schema")};
}

/// The official builder's config object, as this kit's typed routes.
kit::discovery_spec spec_of(const object& c) {
  if (c.contains("toolName"))
    return kit::mcp_tool{*field<std::string>(c, "toolName"), field<std::string>(c, "description"),
                         field<std::string>(c, "transport"), *field<object>(c, "inputSchema"), field<value>(c, "example"),
                         output_of(c)};
  if (c.contains("bodyType")) {
    kit::body_route r;
    r.method = field<std::string>(c, "method");
    r.body_type = *field<std::string>(c, "bodyType");
    if (auto v = field<value>(c, "input")) r.body = *v;
    if (auto v = field<value>(c, "inputSchema")) r.body_schema = *v;
    r.path_params = field<object>(c, "pathParams");
    r.path_params_schema = field<value>(c, "pathParamsSchema");
    r.output = output_of(c);
    return r;
  }
  kit::query_route r;
  r.method = field<std::string>(c, "method");
  if (auto v = field<object>(c, "input")) r.params = *v;
  if (auto v = field<value>(c, "inputSchema")) r.params_schema = *v;
  r.path_params = field<object>(c, "pathParams");
  r.path_params_schema = field<value>(c, "pathParamsSchema");
  r.output = output_of(c);
  return r;
}

value golden() {
  std::ifstream in{Z402_KIT_GOLDEN};
  std::stringstream text;
  text << in.rdbuf();
  return boost::json::parse(text.str());
}

}  // namespace

CAF_TEST(the builder equals the official package on every golden vector) {
  auto vectors = golden().at("vectors").as_array();
  CAF_REQUIRE_GREATER_OR_EQUAL(vectors.size(), 6u);
  for (auto& v : vectors) {
    auto& vec = v.as_object();
    auto built = kit::declare_discovery_extension(spec_of(vec.at("config").as_object()));
    if (auto& req = vec.at("request"); req.is_object()) {
      auto& r = req.as_object();
      auto pattern = field<std::string>(r, "routePattern");
      auto method = *field<std::string>(r, "method");
      auto path = *field<std::string>(r, "path");
      built["bazaar"] = kit::enrich_for_request(built.at("bazaar").as_object(), method,
                                                pattern ? std::optional<std::string_view>{*pattern} : std::nullopt, path);
    }
    auto expected = sorted(vec.at("expected"));
    auto actual = sorted(built);
    CAF_MESSAGE(vec.at("name").as_string().c_str());
    CAF_CHECK_EQUAL(actual, expected);
  }
}

CAF_TEST(declared schemas are self contained) {
  // No $ref in what the builder emits for a route with nested schemas: refs would dangle
  // once the extension leaves the seller (adr-0003).
  kit::body_route r;
  r.body_schema = test::json(R"({"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}}}}})");
  auto text = boost::json::serialize(kit::declare_discovery_extension(r));
  CAF_CHECK_EQUAL(text.find("$ref"), std::string::npos);
}
