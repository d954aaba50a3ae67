#define CAF_SUITE rules
#include "test.hpp"

#include "fixtures.hpp"
#include "rules/bazaar_extension.hpp"
#include "z402/rules/declaration.hpp"
#include "z402/rules/price_label.hpp"
#include "rules/route_template.hpp"
#include "z402/rules/text.hpp"

#include <fstream>
#include <sstream>

using namespace z402;
using boost::json::array;
using boost::json::object;
using boost::json::value;

namespace {

struct fixture {
  config::rail_terms terms = config::default_rail_terms();
  bool allow_http = false;

  expected<std::vector<rules::declared_item>> check(const value& body) {
    return rules::validate_declaration(body, {terms, test::pay_to, allow_http, 128});
  }
  expected<std::vector<rules::declared_item>> check_item(const object& item) { return check(test::declaration_of(array{item})); }

  // The item with `field` set to `v` (dotted path into nested objects).
  object with(std::string_view path, value v) {
    auto item = test::valid_item(terms);
    object* target = &item;
    while (true) {
      auto dot = path.find('.');
      if (dot == std::string_view::npos) break;
      target = &(*target)[path.substr(0, dot)].as_object();
      path = path.substr(dot + 1);
    }
    (*target)[path] = std::move(v);
    return item;
  }
  object with(std::string_view path, const std::string& s) { return with(path, value(boost::json::string(s))); }
  object with(std::string_view path, const char* s) { return with(path, value(boost::json::string(s))); }
  // The item with one field of its single accepts entry set to `v`.
  object with_entry(const char* key, value v) {
    auto e = test::accepts_entry(terms);
    e[key] = std::move(v);
    return with("accepts", array{e});
  }
  object without(std::string_view key) {
    auto item = test::valid_item(terms);
    item.erase(key);
    return item;
  }

  // Asserts the item is refused for `field`, and that nothing was returned.
  void refused(const object& item, const std::string& field) {
    auto r = check_item(item);
    CAF_CHECK(!r.has_value());
    if (!r) {
      CAF_CHECK_EQUAL(r.error().field, field);
      CAF_CHECK(r.error().item == std::optional<std::size_t>{0});
      CAF_CHECK(!r.error().reason.empty());
    }
  }
  void accepted(const object& item) {
    auto r = check_item(item);
    if (!r) CAF_MESSAGE("unexpected refusal: " << r.error().message());
    CAF_REQUIRE(r.has_value());
    CAF_CHECK_EQUAL(r->size(), 1u);
  }
};

std::string repeat(std::string_view s, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

array accepts_times(const config::rail_terms& terms, std::size_t n) {
  array a;
  for (std::size_t i = 0; i < n; ++i) a.push_back(test::accepts_entry(terms));
  return a;
}

// An example nested `levels` arrays deep, to reach a given depth of extensions.bazaar.
value nested(std::size_t levels) {
  value v = array{};
  for (std::size_t i = 1; i < levels; ++i) v = array{v};
  return v;
}

}  // namespace

CAF_TEST_FIXTURE_SCOPE(rules_tests, fixture)

CAF_TEST(a valid item is accepted with its canonical identity) {
  auto item = with("resource", "HTTPS://Weather.Example.COM:443/v1/weather/?city=x#top");
  auto r = check_item(item);
  CAF_REQUIRE(r.has_value());
  CAF_CHECK_EQUAL((*r)[0].identity.resource, "https://weather.example.com/v1/weather");
  CAF_CHECK_EQUAL((*r)[0].identity.selector, "GET");
  CAF_CHECK_EQUAL((*r)[0].fields.at("resource").as_string(), "https://weather.example.com/v1/weather");
  CAF_CHECK_EQUAL((*r)[0].fields.at("description").as_string(), "Current weather for a city.");
}

CAF_TEST(resource is an https URL of at most 2048 bytes without userinfo) {
  std::string base = "https://a.example.com/";
  accepted(with("resource", base + repeat("a", 2048 - base.size())));
  refused(with("resource", base + repeat("a", 2049 - base.size())), "resource");
  refused(with("resource", "http://a.example.com/x"), "resource");
  allow_http = true;
  accepted(with("resource", "http://a.example.com/x"));
  allow_http = false;
  refused(with("resource", "https://user:pw@a.example.com/x"), "resource");
  refused(with("resource", "https://a.example.com/x\ty"), "resource");
  refused(with("resource", "https://a.example.com/\xe2\x80\xae"), "resource");
  refused(with("resource", "/relative/path"), "resource");
  refused(with("resource", "ftp://a.example.com/x"), "resource");
  refused(with("resource", "https://a.example.com:99999/x"), "resource");
  refused(with("resource", 42), "resource");
  refused(without("resource"), "resource");
}

CAF_TEST(type is http or mcp and x402Version is 2) {
  refused(with("type", "ftp"), "type");
  refused(without("type"), "type");
  refused(with("x402Version", 1), "x402Version");
  refused(with("x402Version", "2"), "x402Version");
  refused(with("x402Version", 2.0), "x402Version");
}

CAF_TEST(accepts holds 1 to 4 entries) {
  accepted(with("accepts", accepts_times(terms, 1)));
  accepted(with("accepts", accepts_times(terms, 4)));
  refused(with("accepts", accepts_times(terms, 0)), "accepts");
  refused(with("accepts", accepts_times(terms, 5)), "accepts");
  refused(with("accepts", "x"), "accepts");
}

CAF_TEST(each accepts entry names this provider and exactly the rail terms) {
  refused(with_entry("payTo", "uregtest1someoneelse"), "accepts[0].payTo");
  refused(with_entry("scheme", "exact"), "accepts[0].scheme");
  refused(with_entry("network", "eip155:8453"), "accepts[0].network");
  refused(with_entry("asset", "USDC"), "accepts[0].asset");
  auto extra = terms.extra;
  extra["creditRatioBps"] = 2501;
  refused(with_entry("extra", extra), "accepts[0].extra");
  refused(with_entry("extra", object{}), "accepts[0].extra");
  refused(with_entry("surprise", 1), "accepts[0].surprise");
  // A second, bad entry is found too.
  auto bad = test::accepts_entry(terms);
  bad["payTo"] = "x";
  refused(with("accepts", array{test::accepts_entry(terms), bad}), "accepts[1].payTo");
}

CAF_TEST(amount is a positive decimal string that fits in 64 bits) {
  auto amount = [&](value v) { return with_entry("amount", std::move(v)); };
  accepted(amount("1"));
  accepted(amount("18446744073709551615"));
  refused(amount("18446744073709551616"), "accepts[0].amount");
  refused(amount("99999999999999999999"), "accepts[0].amount");
  refused(amount("0"), "accepts[0].amount");
  refused(amount("01"), "accepts[0].amount");
  refused(amount("-1"), "accepts[0].amount");
  refused(amount("1.5"), "accepts[0].amount");
  refused(amount(""), "accepts[0].amount");
  refused(amount(1000), "accepts[0].amount");
  refused(amount(1e300), "accepts[0].amount");
}

CAF_TEST(maxTimeoutSeconds is from 1 to 3600) {
  auto timeout = [&](value v) { return with_entry("maxTimeoutSeconds", std::move(v)); };
  accepted(timeout(1));
  accepted(timeout(3600));
  refused(timeout(0), "accepts[0].maxTimeoutSeconds");
  refused(timeout(3601), "accepts[0].maxTimeoutSeconds");
  refused(timeout(60.5), "accepts[0].maxTimeoutSeconds");
  refused(timeout("60"), "accepts[0].maxTimeoutSeconds");
  refused(timeout(std::numeric_limits<std::uint64_t>::max()), "accepts[0].maxTimeoutSeconds");
}

CAF_TEST(description is at most 500 characters of clean text) {
  accepted(with("description", repeat("\xc3\xa9", 500)));  // 500 characters, 1000 bytes
  refused(with("description", repeat("\xc3\xa9", 501)), "description");
  refused(with("description", "line\nbreak"), "description");
  refused(with("description", "bell\x07"), "description");
  refused(with("description", "c1 \xc2\x85 control"), "description");
  refused(with("description", "evil \xe2\x80\xae override"), "description");
  refused(with("description", "isolate \xe2\x81\xa6 x"), "description");
  refused(with("description", 5), "description");
}

CAF_TEST(mimeType is type slash subtype) {
  accepted(with("mimeType", "text/markdown"));
  refused(with("mimeType", "json"), "mimeType");
  refused(with("mimeType", "text/html; charset=utf-8"), "mimeType");
  refused(with("mimeType", "text/"), "mimeType");
}

CAF_TEST(serviceName is 1 to 32 printable ASCII characters) {
  accepted(with("serviceName", repeat("s", 32)));
  refused(with("serviceName", repeat("s", 33)), "serviceName");
  refused(with("serviceName", ""), "serviceName");
  refused(with("serviceName", "caf\xc3\xa9"), "serviceName");
  refused(with("serviceName", "tab\there"), "serviceName");
}

CAF_TEST(tags are at most 5 unique short printable strings) {
  accepted(with("tags", array{"a", "b", "c", "d", "e"}));
  refused(with("tags", array{"a", "b", "c", "d", "e", "f"}), "tags");
  refused(with("tags", array{"Weather", "weather"}), "tags[1]");
  accepted(with("tags", array{value(repeat("t", 32))}));
  refused(with("tags", array{value(repeat("t", 33))}), "tags[0]");
  refused(with("tags", array{""}), "tags[0]");
  refused(with("tags", array{1}), "tags[0]");
  refused(with("tags", "weather"), "tags");
}

CAF_TEST(iconUrl names a real host and is never an address) {
  std::string base = "https://cdn.example.com/";
  accepted(with("iconUrl", base + repeat("i", 2048 - base.size())));
  refused(with("iconUrl", base + repeat("i", 2049 - base.size())), "iconUrl");
  for (auto bad : {"https://127.0.0.1/i.png", "https://[::1]/i.png", "https://localhost/i.png",
                   "https://2130706433/i.png", "https://0x7f000001/i.png", "https://user@cdn.example.com/i.png",
                   "javascript:alert(1)", "data:image/png;base64,AAAA"})
    refused(with("iconUrl", bad), "iconUrl");
}

CAF_TEST(unknown fields and extensions are refused by name) {
  refused(with("lastSeen", "2026-01-01T00:00:00.000Z"), "lastSeen");
  refused(with("extensions.other", object{}), "extensions.other");
  refused(with("extensions.z402.price", 1), "extensions.z402.price");
  refused(with("extensions.bazaar.extra", 1), "extensions.bazaar.extra");
}

CAF_TEST(the billing unit is 1 to 32 printable ASCII characters) {
  accepted(with("extensions.z402.unit", repeat("u", 32)));
  refused(with("extensions.z402.unit", repeat("u", 33)), "extensions.z402.unit");
  refused(with("extensions.z402.unit", ""), "extensions.z402.unit");
}

CAF_TEST(the bazaar schema may not point outside the document) {
  auto schema_with = [&](const char* key, value v) {
    auto item = test::valid_item(terms);
    item["extensions"].as_object()["bazaar"].as_object()["schema"].as_object()["properties"].as_object()["output"].as_object()[key] = std::move(v);
    return item;
  };
  refused(schema_with("$ref", "https://evil.example.com/schema.json"), "extensions.bazaar.schema.properties.output.$ref");
  refused(schema_with("$id", "https://evil.example.com/s"), "extensions.bazaar.schema.properties.output.$id");
  refused(schema_with("$ref", "other.json#/x"), "extensions.bazaar.schema.properties.output.$ref");
  auto local = schema_with("$ref", "#/definitions/out");
  local["extensions"].as_object()["bazaar"].as_object()["schema"].as_object()["definitions"] = object{{"out", object{{"type", "object"}}}};
  accepted(local);
}

CAF_TEST(info must satisfy the schema) {
  refused(with("extensions.bazaar.info.input.queryParams", object{{"town", "x"}}), "extensions.bazaar.info.input.queryParams");
  refused(with("extensions.bazaar.info.input.extra", 1), "extensions.bazaar.info.input");
  refused(with("extensions.bazaar.schema.type", "no-such-type"), "extensions.bazaar.schema");
}

CAF_TEST(protocol checks on the input) {
  refused(with("extensions.bazaar.info.input.method", "TRACE"), "extensions.bazaar.info.input.method");
  refused(with("extensions.bazaar.info.input.type", "grpc"), "extensions.bazaar.info.input.type");
  refused(with("extensions.bazaar.info.input.bodyType", "json"), "extensions.bazaar.info.input.bodyType");
  auto mcp = test::valid_item(terms, "https://mcp.example.com/mcp");
  mcp["type"] = "mcp";
  mcp["extensions"].as_object()["bazaar"] = test::bazaar_mcp();
  accepted(mcp);
  auto r = check_item(mcp);
  CAF_CHECK_EQUAL((*r)[0].identity.selector, "sentiment");
  mcp["extensions"].as_object()["bazaar"].as_object()["info"].as_object()["input"].as_object().erase("toolName");
  refused(mcp, "extensions.bazaar.info.input.toolName");
  auto no_bazaar = test::valid_item(terms, "https://mcp.example.com/mcp");
  no_bazaar["type"] = "mcp";
  no_bazaar["extensions"].as_object().erase("bazaar");
  refused(no_bazaar, "extensions.bazaar");
  // An HTTP item whose bazaar input says MCP is refused.
  auto mixed = test::valid_item(terms);
  mixed["extensions"].as_object()["bazaar"] = test::bazaar_mcp();
  refused(mixed, "extensions.bazaar.info.input.type");
}

CAF_TEST(the method of an item comes from the bazaar info and defaults to GET) {
  auto item = test::valid_item(terms);
  item.erase("extensions");
  auto r = check_item(item);
  CAF_REQUIRE(r.has_value());
  CAF_CHECK_EQUAL((*r)[0].identity.selector, "GET");
}

CAF_TEST(extensions.bazaar nests at most 32 levels) {
  // bazaar(1) > info(2) > output(3) > example: depth 3 + k for k nested arrays.
  auto deep = [&](std::size_t k) {
    auto item = test::valid_item(terms);
    auto& schema_output = item["extensions"].as_object()["bazaar"].as_object()["schema"].as_object()["properties"].as_object()["output"].as_object();
    schema_output["properties"].as_object()["example"] = object{{"type", "array"}};
    item["extensions"].as_object()["bazaar"].as_object()["info"].as_object()["output"].as_object()["example"] = nested(k);
    return item;
  };
  accepted(deep(29));
  refused(deep(30), "extensions.bazaar");
}

CAF_TEST(schema at most 64 KiB and each example at most 16 KiB) {
  auto with_description = [&](std::size_t schema_bytes) {
    auto item = test::valid_item(terms);
    auto& schema = item["extensions"].as_object()["bazaar"].as_object()["schema"].as_object();
    schema["description"] = "";
    auto base = boost::json::serialize(schema).size();
    schema["description"] = repeat("d", schema_bytes - base);
    return item;
  };
  auto ok = with_description(rules::max_schema_bytes);
  // The item as a whole stays under 128 KiB, so only the schema rule speaks.
  accepted(ok);
  refused(with_description(rules::max_schema_bytes + 1), "extensions.bazaar.schema");
  auto with_example = [&](std::size_t bytes) {
    auto item = test::valid_item(terms);
    auto& schema_output = item["extensions"].as_object()["bazaar"].as_object()["schema"].as_object()["properties"].as_object()["output"].as_object();
    schema_output["properties"].as_object()["example"] = object{{"type", "string"}};
    item["extensions"].as_object()["bazaar"].as_object()["info"].as_object()["output"].as_object()["example"] =
        repeat("e", bytes - 2);  // the quotes count
    return item;
  };
  accepted(with_example(rules::max_example_bytes));
  refused(with_example(rules::max_example_bytes + 1), "extensions.bazaar.info.output.example");
}

CAF_TEST(a schema pattern is bounded before std::regex runs it) {
  auto item = test::valid_item(terms);
  auto& city = item["extensions"].as_object()["bazaar"].as_object()["schema"].as_object()["properties"].as_object()["input"]
                   .as_object()["properties"].as_object()["queryParams"].as_object()["properties"].as_object()["city"].as_object();
  city["pattern"] = "^[A-Z]" + repeat("[a-z]?", 41) + "abc$";  // 256 bytes
  CAF_CHECK_EQUAL(city["pattern"].as_string().size(), rules::max_schema_pattern_bytes);
  item["extensions"].as_object()["bazaar"].as_object()["info"].as_object()["input"].as_object()["queryParams"].as_object()["city"] = "Labc";
  accepted(item);
  city["pattern"] = "^[A-Z]" + repeat("[a-z]?", 41) + "abcd$";
  refused(item, "extensions.bazaar.schema.properties.input.properties.queryParams.properties.city.pattern");
}

CAF_TEST(a valid routeTemplate replaces the path and an invalid one is refused) {
  auto item = with("resource", "https://api.example.com/users/42");
  item["extensions"].as_object()["bazaar"].as_object()["routeTemplate"] = "/users/:id";
  auto r = check_item(item);
  CAF_REQUIRE(r.has_value());
  CAF_CHECK_EQUAL((*r)[0].identity.resource, "https://api.example.com/users/:id");
  for (auto bad : {"/users/../admin", "/a/%2e%2e/b", "/a/%252e%252e/b", "relative", "/a b", "/x/https://evil"}) {
    item["extensions"].as_object()["bazaar"].as_object()["routeTemplate"] = bad;
    refused(item, "extensions.bazaar.routeTemplate");
  }
  CAF_CHECK(rules::is_valid_route_template("/a/%41/:b"));
  CAF_CHECK(!rules::is_valid_route_template("/%2525252525252e%2e"));
}

CAF_TEST(one item serialises to at most 128 KiB) {
  // Four bazaar-heavy accepts cannot grow it; a big schema plus example can: 64 KiB + 16 KiB
  // per example is under the limit, so build the excess from the largest allowed parts.
  auto item = test::valid_item(terms);
  auto& bazaar = item["extensions"].as_object()["bazaar"].as_object();
  auto& props = bazaar["schema"].as_object()["properties"].as_object();
  props["input"].as_object()["properties"].as_object()["queryParams"].as_object()["description"] = repeat("q", 60000);
  props["output"].as_object()["properties"].as_object()["example"] = object{{"type", "string"}};
  bazaar["info"].as_object()["output"].as_object()["example"] = repeat("e", 16000);
  bazaar["info"].as_object()["input"].as_object()["queryParams"].as_object()["city"] = repeat("c", 60000);
  refused(item, "");
}

CAF_TEST(a declaration lists 1 to 128 items with distinct identities) {
  array items;
  for (int i = 0; i < 128; ++i) items.push_back(test::valid_item(terms, "https://api.example.com/r" + std::to_string(i)));
  auto r = check(test::declaration_of(items));
  CAF_CHECK(r.has_value());
  CAF_CHECK_EQUAL(r->size(), 128u);
  items.push_back(test::valid_item(terms, "https://api.example.com/r128"));
  r = check(test::declaration_of(items));
  CAF_REQUIRE(!r);
  CAF_CHECK_EQUAL(r.error().reason, "a provider may list at most 128 items");
  CAF_CHECK(!r.error().item);
  r = check(test::declaration_of(array{}));
  CAF_CHECK(!r && r.error().field == "items");
  r = check(test::declaration_of(array{test::valid_item(terms), test::valid_item(terms, "https://WEATHER.example.com/v1/weather/")}));
  CAF_REQUIRE(!r);
  CAF_CHECK(r.error().item == std::optional<std::size_t>{1});
  CAF_CHECK_EQUAL(r.error().field, "resource");
}

CAF_TEST(the first failing item refuses the whole declaration) {
  auto bad = with("serviceName", "");
  auto r = check(test::declaration_of(array{test::valid_item(terms, "https://a.example.com/1"), bad}));
  CAF_REQUIRE(!r);
  CAF_CHECK(r.error().item == std::optional<std::size_t>{1});
  CAF_CHECK_EQUAL(r.error().message().substr(0, 21), "items[1].serviceName:");
}

CAF_TEST(the body is an object with items and nothing else) {
  CAF_CHECK(!check(test::json("[]")).has_value());
  CAF_CHECK(!check(test::json(R"({"items":{}})")).has_value());
  auto r = check(test::json(R"({"items":[],"more":1})"));
  CAF_REQUIRE(!r);
  CAF_CHECK_EQUAL(r.error().field, "more");
  r = check(test::json(R"({"items":[5]})"));
  CAF_REQUIRE(!r);
  CAF_CHECK(r.error().item == std::optional<std::size_t>{0});
}

CAF_TEST(text checks) {
  CAF_CHECK(rules::check_shown_text("plain caf\xc3\xa9 \xf0\x9f\x98\x80", "text"));
  CAF_CHECK(!rules::check_shown_text("\xff", "text"));
  CAF_CHECK(!rules::check_shown_text("\xc0\xaf", "text"));           // overlong
  CAF_CHECK(!rules::check_shown_text("\xed\xa0\x80", "text"));       // surrogate
  CAF_CHECK(!rules::check_shown_text("\x1b[31m", "text"));
  CAF_CHECK(!rules::check_shown_text("\x7f", "text"));
  CAF_CHECK(!rules::check_shown_text("\xe2\x80\x8f", "text"));       // RLM
  CAF_CHECK_EQUAL(rules::utf8_length("\xc3\xa9t\xc3\xa9"), 3u);
}

CAF_TEST(the terms version follows the terms) {
  auto a = config::default_rail_terms();
  auto b = a;
  b.extra["creditCapZat"] = "300000";
  CAF_CHECK_NOT_EQUAL(config::derive_terms_version(a), config::derive_terms_version(b));
  CAF_CHECK_EQUAL(a.extra.at("termsVersion").as_string(), config::derive_terms_version(a));
  CAF_CHECK_EQUAL(config::derive_terms_version(a).size(), 16u);
}

CAF_TEST_FIXTURE_SCOPE_END()

// Prices: one rendering everywhere (rules/price_label.hpp), held to the vectors that the
// Services page's script is held to as well (tests/browser/services.test.mjs).
CAF_TEST(a price is its atomic amount with the atomic unit and the billing unit and the exact whole coins) {
  std::ifstream in{Z402_PRICE_LABELS};
  std::stringstream text;
  text << in.rdbuf();
  auto vectors = boost::json::parse(text.str()).at("vectors").as_array();
  CAF_REQUIRE_GREATER_OR_EQUAL(vectors.size(), 10u);
  for (auto& v : vectors) {
    auto& o = v.as_object();
    auto s = [&](const char* k) { return std::string{o.at(k).as_string()}; };
    CAF_CHECK_EQUAL(rules::price_label(s("amount"), s("asset"), s("unit")), s("label"));
  }
}

CAF_TEST(whole coins are exact at every scale) {
  CAF_CHECK_EQUAL(rules::whole_coins("1000", 8), "0.00001");
  CAF_CHECK_EQUAL(rules::whole_coins("100000001", 8), "1.00000001");
  CAF_CHECK_EQUAL(rules::whole_coins("12345678900", 8), "123.456789");
  CAF_CHECK_EQUAL(rules::whole_coins("7", 0), "7");
  CAF_CHECK_EQUAL(rules::whole_coins("000", 8), "0");
}
