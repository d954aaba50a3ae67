#include "z402/kit/bazaar_builder.hpp"

#include <boost/json/array.hpp>

#include <regex>
#include <vector>

namespace z402::kit {
namespace {

namespace json = boost::json;

constexpr std::string_view schema_dialect = "https://json-schema.org/draft/2020-12/schema";

/// JavaScript truthiness, for the `output?.example ? ... : {}` of the official builder.
bool truthy(const json::value& v) {
  switch (v.kind()) {
    case json::kind::null: return false;
    case json::kind::bool_: return v.get_bool();
    case json::kind::int64: return v.get_int64() != 0;
    case json::kind::uint64: return v.get_uint64() != 0;
    case json::kind::double_: return v.get_double() != 0.0;
    case json::kind::string: return !v.get_string().empty();
    default: return true;
  }
}

/// `{type: "object", ...extra}` where `extra` is spread only when it is an object.
json::object object_schema(const json::value* extra) {
  json::object schema{{"type", "object"}};
  if (extra && extra->is_object())
    for (auto& [k, v] : extra->get_object()) schema[k] = v;
  return schema;
}

json::object string_schema() { return {{"type", "string"}}; }

json::object enum_schema(std::initializer_list<std::string_view> values) {
  json::array list;
  for (auto v : values) list.emplace_back(v);
  return {{"type", "string"}, {"enum", std::move(list)}};
}

bool has_output(const std::optional<output_spec>& out) { return out && truthy(out->example); }

void add_output(json::object& info, json::object& properties, const std::optional<output_spec>& out) {
  if (!has_output(out)) return;
  info["output"] = json::object{{"type", "json"}, {"example", out->example}};
  json::value schema_extra;
  if (out->schema) schema_extra = *out->schema;
  properties["output"] = json::object{
      {"type", "object"},
      {"properties", json::object{{"type", string_schema()}, {"example", object_schema(out->schema ? &schema_extra : nullptr)}}},
      {"required", json::array{"type"}}};
}

json::object envelope(json::object info, json::object properties) {
  return {{"info", std::move(info)},
          {"schema", json::object{{"$schema", schema_dialect},
                                  {"type", "object"},
                                  {"properties", std::move(properties)},
                                  {"required", json::array{"input"}}}}};
}

template <class Route>
void add_path_params(json::object& input, json::object& input_props, const Route& r) {
  if (r.path_params) input["pathParams"] = *r.path_params;
  if (r.path_params_schema && truthy(*r.path_params_schema)) input_props["pathParams"] = object_schema(&*r.path_params_schema);
}

json::object build(const query_route& r) {
  json::object input{{"type", "http"}};
  if (r.method && !r.method->empty()) input["method"] = *r.method;
  input["queryParams"] = r.params;
  json::object input_props{{"type", json::object{{"type", "string"}, {"const", "http"}}},
                           {"method", enum_schema({"GET", "HEAD", "DELETE"})}};
  if (truthy(r.params_schema)) input_props["queryParams"] = object_schema(&r.params_schema);
  add_path_params(input, input_props, r);
  json::object info{{"input", std::move(input)}};
  json::object properties{{"input", json::object{{"type", "object"},
                                                 {"properties", std::move(input_props)},
                                                 {"required", json::array{"type", "method"}},
                                                 {"additionalProperties", false}}}};
  add_output(info, properties, r.output);
  return envelope(std::move(info), std::move(properties));
}

json::object build(const body_route& r) {
  json::object input{{"type", "http"}};
  if (r.method && !r.method->empty()) input["method"] = *r.method;
  input["bodyType"] = r.body_type;
  input["body"] = r.body;
  json::object input_props{{"type", json::object{{"type", "string"}, {"const", "http"}}},
                           {"method", enum_schema({"POST", "PUT", "PATCH"})},
                           {"bodyType", enum_schema({"json", "form-data", "text"})},
                           {"body", r.body_schema}};
  add_path_params(input, input_props, r);
  json::object info{{"input", std::move(input)}};
  json::object properties{{"input", json::object{{"type", "object"},
                                                 {"properties", std::move(input_props)},
                                                 {"required", json::array{"type", "method", "bodyType", "body"}},
                                                 {"additionalProperties", false}}}};
  add_output(info, properties, r.output);
  return envelope(std::move(info), std::move(properties));
}

json::object build(const mcp_tool& t) {
  json::object input{{"type", "mcp"}, {"toolName", t.tool_name}};
  json::object input_props{{"type", json::object{{"type", "string"}, {"const", "mcp"}}}, {"toolName", string_schema()}};
  if (t.description) {
    input["description"] = *t.description;
    input_props["description"] = string_schema();
  }
  if (t.transport) {
    input["transport"] = *t.transport;
    json::object transport = string_schema();
    if (*t.transport == "streamable-http" || *t.transport == "sse") transport["enum"] = json::array{*t.transport};
    input_props["transport"] = std::move(transport);
  }
  input["inputSchema"] = t.input_schema;
  input_props["inputSchema"] = json::object{{"type", "object"}};
  if (t.example) {
    input["example"] = *t.example;
    input_props["example"] = json::object{{"type", "object"}};
  }
  json::object info{{"input", std::move(input)}};
  json::object properties{{"input", json::object{{"type", "object"},
                                                 {"properties", std::move(input_props)},
                                                 {"required", json::array{"type", "toolName", "inputSchema"}},
                                                 {"additionalProperties", false}}}};
  add_output(info, properties, t.output);
  return envelope(std::move(info), std::move(properties));
}

json::object& object_at(json::object& parent, std::string_view key) {
  auto& v = parent[key];
  if (!v.is_object()) v = json::object{};
  return v.get_object();
}

/// `*` segments become :var1, :var2, ... as upstream's normalizeWildcardPattern.
std::string normalise_wildcards(std::string_view pattern) {
  std::string out;
  int counter = 0;
  std::size_t start = 0;
  while (true) {
    auto end = pattern.find('/', start);
    auto seg = pattern.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    out += seg == "*" ? ":var" + std::to_string(++counter) : std::string{seg};
    if (end == std::string_view::npos) break;
    out += '/';
    start = end + 1;
  }
  return out;
}

bool wildcard_only(std::string_view pattern) {
  bool any = false;
  std::size_t start = 0;
  while (start <= pattern.size()) {
    auto end = std::min(pattern.find('/', start), pattern.size());
    auto seg = pattern.substr(start, end - start);
    if (!seg.empty()) {
      if (seg != "*") return false;
      any = true;
    }
    start = end + 1;
  }
  return any;
}

const std::regex bracket_param{R"(\[([^\]]+)\])"};
const std::regex colon_param{R"(:([a-zA-Z_][a-zA-Z0-9_]*))"};

std::string regex_escape(const std::string& literal) {
  static const std::regex special{R"([.*+?^${}()|[\]\\])"};
  return std::regex_replace(literal, special, R"(\$&)");
}

/// The parameters of `path` under a `:name` pattern; {} when the path does not match it.
json::object path_params_of(const std::string& pattern, std::string_view path) {
  std::vector<std::string> names;
  std::string expression = "^";
  auto begin = std::sregex_iterator(pattern.begin(), pattern.end(), colon_param);
  std::size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator{}; ++it) {
    expression += regex_escape(pattern.substr(last, it->position() - last));
    expression += "([^/]+)";
    names.push_back((*it)[1].str());
    last = it->position() + it->length();
  }
  expression += regex_escape(pattern.substr(last)) + "$";
  std::smatch match;
  std::string subject{path};
  json::object params;
  if (!std::regex_match(subject, match, std::regex{expression})) return params;
  for (std::size_t i = 0; i < names.size(); ++i) params[names[i]] = match[i + 1].str();
  return params;
}

}  // namespace

json::object declare_discovery_extension(const discovery_spec& spec) {
  return {{"bazaar", std::visit([](const auto& r) { return build(r); }, spec)}};
}

json::object enrich_for_request(const json::object& bazaar, std::string_view method,
                                std::optional<std::string_view> route_pattern, std::string_view path) {
  auto info_input = bazaar.contains("info") && bazaar.at("info").is_object() ? bazaar.at("info").get_object().if_contains("input") : nullptr;
  if (info_input && info_input->is_object()) {
    auto type = info_input->get_object().if_contains("type");
    if (type && type->is_string() && type->get_string() == "mcp") return bazaar;
  }
  json::object out = bazaar;
  object_at(object_at(out, "info"), "input")["method"] = method;
  auto& input_schema = object_at(object_at(object_at(out, "schema"), "properties"), "input");
  object_at(input_schema, "properties")["method"] = json::object{{"type", "string"}, {"enum", json::array{method}}};
  auto& required = input_schema["required"];
  if (!required.is_array()) required = json::array{};
  bool listed = false;
  for (auto& r : required.get_array()) listed = listed || (r.is_string() && r.get_string() == "method");
  if (!listed) required.get_array().emplace_back("method");

  if (!route_pattern || route_pattern->empty() || wildcard_only(*route_pattern)) return out;
  auto pattern = normalise_wildcards(*route_pattern);
  bool has_bracket = std::regex_search(pattern, bracket_param);
  if (!has_bracket && !std::regex_search(pattern, colon_param)) return out;
  if (has_bracket) pattern = std::regex_replace(pattern, bracket_param, ":$1");
  out["routeTemplate"] = pattern;
  object_at(object_at(out, "info"), "input")["pathParams"] = path_params_of(pattern, path);
  auto& props = object_at(input_schema, "properties");
  if (!props.contains("pathParams")) props["pathParams"] = json::object{{"type", "object"}};
  return out;
}

}  // namespace z402::kit
