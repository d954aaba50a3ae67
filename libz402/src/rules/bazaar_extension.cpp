#include "rules/bazaar_extension.hpp"

#include "rules/route_template.hpp"
#include "z402/rules/text.hpp"
#include "z402/wire/json.hpp"

#include <boost/json/serialize.hpp>
#include <valijson/adapters/boost_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

#include <algorithm>
#include <array>
#include <exception>

namespace z402::rules {
namespace {

const std::string prefix = "extensions.bazaar";

bool one_of(std::string_view s, std::initializer_list<std::string_view> options) {
  for (auto o : options)
    if (s == o) return true;
  return false;
}

// Refuses a $ref/$id that points outside the document, or a `pattern` too long to run safely;
// the field is the keyword's path.
expected<void> check_schema_keywords(const boost::json::value& v, const std::string& path) {
  if (auto* arr = v.if_array()) {
    for (std::size_t i = 0; i < arr->size(); ++i)
      if (auto r = check_schema_keywords((*arr)[i], path + "[" + std::to_string(i) + "]"); !r) return r;
    return {};
  }
  auto* obj = v.if_object();
  if (!obj) return {};
  for (auto& kv : *obj) {
    std::string key{kv.key()};
    std::string here = path + "." + key;
    if (key == "$ref" || key == "$id") {
      auto* s = kv.value().if_string();
      if (!s || s->empty() || s->front() != '#')
        return refused(here, "must be a local reference starting with '#' (nothing remote is resolved)");
    }
    if (key == "pattern" && kv.value().is_string() && kv.value().as_string().size() > max_schema_pattern_bytes)
      return refused(here, "a pattern may be at most " + std::to_string(max_schema_pattern_bytes) + " bytes");
    if (auto r = check_schema_keywords(kv.value(), here); !r) return r;
  }
  return {};
}

expected<void> check_example(const boost::json::object& parent, const std::string& path) {
  if (auto* ex = parent.if_contains("example"); ex && boost::json::serialize(*ex).size() > max_example_bytes)
    return refused(path + ".example", "may serialise to at most " + std::to_string(max_example_bytes) + " bytes");
  return {};
}

expected<void> check_against_schema(const boost::json::value& schema_json, const boost::json::value& info) {
  valijson::Schema schema;
  try {
    valijson::SchemaParser parser{valijson::SchemaParser::kDraft7};
    valijson::adapters::BoostJsonAdapter adapter{schema_json};
    parser.populateSchema(adapter, schema);
  } catch (const std::exception& e) {
    return refused(prefix + ".schema", std::string{"is not a valid JSON Schema: "} + e.what());
  }
  valijson::Validator validator;
  valijson::ValidationResults results;
  valijson::adapters::BoostJsonAdapter target{info};
  bool valid = false;
  try {
    valid = validator.validate(schema, target, &results);
  } catch (const std::exception& e) {
    return refused(prefix + ".info", std::string{"could not be checked against the schema: "} + e.what());
  }
  if (valid) return {};
  valijson::ValidationResults::Error first;
  std::string where = prefix + ".info";
  std::string why = "does not match extensions.bazaar.schema";
  if (results.popError(first)) {
    // valijson names steps "[name]" or "[3]": make them a path like the other fields'.
    for (auto& c : first.context) {
      if (c.size() < 3 || c.front() != '[') continue;
      auto inner = c.substr(1, c.size() - 2);
      bool index = std::all_of(inner.begin(), inner.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
      where += index ? c : "." + inner;
    }
    why += ": " + first.description;
  }
  return refused(where, why);
}

expected<void> check_http_input(const boost::json::object& input, bazaar_facts& facts) {
  const std::string path = prefix + ".info.input";
  facts.method = "GET";
  if (auto* m = input.if_contains("method")) {
    auto* s = m->if_string();
    if (!s || !one_of(*s, {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"}))
      return refused(path + ".method", "must be one of GET, POST, PUT, PATCH, DELETE, HEAD");
    facts.method = s->c_str();
  }
  if (auto* b = input.if_contains("bodyType")) {
    auto* s = b->if_string();
    if (!s || !one_of(*s, {"json", "form-data", "text"}))
      return refused(path + ".bodyType", "must be one of json, form-data, text");
    if (!one_of(facts.method, {"POST", "PUT", "PATCH"}))
      return refused(path + ".bodyType", "needs a body method (POST, PUT or PATCH), not " + facts.method);
  }
  return {};
}

expected<void> check_mcp_input(const boost::json::object& input, bazaar_facts& facts) {
  const std::string path = prefix + ".info.input";
  auto* tool = wire::find_string(input, "toolName");
  if (!tool || !is_printable_ascii(*tool, 128))
    return refused(path + ".toolName", "is required: 1-128 printable ASCII characters");
  facts.tool_name = tool->c_str();
  auto* schema = input.if_contains("inputSchema");
  if (!schema || !schema->is_object()) return refused(path + ".inputSchema", "is required and must be an object");
  if (auto* t = input.if_contains("transport")) {
    auto* s = t->if_string();
    if (!s || !one_of(*s, {"streamable-http", "sse"}))
      return refused(path + ".transport", "must be streamable-http or sse");
  }
  return check_example(input, path);
}

}  // namespace

expected<void> check_bazaar_extension(const boost::json::value& bazaar, route_template_policy policy,
                                                  bazaar_facts& facts) {
  auto* obj = bazaar.if_object();
  if (!obj) return refused(prefix, "must be an object");
  for (auto& kv : *obj)
    if (!one_of(kv.key(), {"info", "schema", "routeTemplate"}))
      return refused(prefix + "." + std::string{kv.key()}, "is not a field of the bazaar extension");
  if (wire::json_depth(bazaar) > max_bazaar_depth)
    return refused(prefix, "nests deeper than " + std::to_string(max_bazaar_depth) + " levels");
  auto* info = obj->if_contains("info");
  if (!info || !info->is_object()) return refused(prefix + ".info", "is required and must be an object");
  auto* schema = obj->if_contains("schema");
  if (!schema || !schema->is_object()) return refused(prefix + ".schema", "is required and must be an object");
  if (boost::json::serialize(*schema).size() > max_schema_bytes)
    return refused(prefix + ".schema", "may serialise to at most " + std::to_string(max_schema_bytes) + " bytes");
  if (auto keywords = check_schema_keywords(*schema, prefix + ".schema"); !keywords) return keywords;
  auto* input = info->as_object().if_contains("input");
  if (!input || !input->is_object()) return refused(prefix + ".info.input", "is required and must be an object");
  auto* type = wire::find_string(input->as_object(), "type");
  if (!type || !one_of(*type, {"http", "mcp"})) return refused(prefix + ".info.input.type", "must be http or mcp");
  facts.input_type = type->c_str();
  if (auto* output = info->as_object().if_contains("output"); output && output->is_object())
    if (auto e = check_example(output->as_object(), prefix + ".info.output"); !e) return e;
  auto protocol = facts.input_type == "http" ? check_http_input(input->as_object(), facts)
                                             : check_mcp_input(input->as_object(), facts);
  if (!protocol) return protocol;
  if (auto e = check_against_schema(*schema, *info); !e) return e;
  facts.route_template.reset();
  if (auto* rt = obj->if_contains("routeTemplate")) {
    auto* s = rt->if_string();
    if (s && is_valid_route_template(*s)) {
      facts.route_template = std::string{s->c_str()};
    } else if (policy == route_template_policy::refuse_invalid) {
      return refused(prefix + ".routeTemplate",
                         "must match ^/[a-zA-Z0-9_/:.\\-~%]+$ and contain neither '..' nor '://' once percent-decoded");
    }
  }
  return {};
}

}  // namespace z402::rules
