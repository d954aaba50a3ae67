#define CAF_SUITE wire
#include "test.hpp"

#include "z402/config/listen_address.hpp"
#include "z402/error.hpp"
#include "z402/http/message.hpp"
#include "z402/wire/base64.hpp"
#include "wire/flat_json.hpp"
#include "z402/wire/iso_time.hpp"
#include "z402/wire/json.hpp"
#include "wire/url.hpp"

#include <chrono>
#include <cstdio>
#include <set>
#include <vector>

using namespace z402;

CAF_TEST(iso time round trips with milliseconds) {
  CAF_CHECK_EQUAL(wire::format_iso_ms(0), "1970-01-01T00:00:00.000Z");
  CAF_CHECK_EQUAL(wire::format_iso_ms(1798203296789), "2026-12-25T12:54:56.789Z");
  auto parsed = wire::parse_iso_ms("2026-12-25T12:54:56.789Z");
  CAF_REQUIRE(parsed);
  CAF_CHECK_EQUAL(*parsed, 1798203296789);
  CAF_CHECK_EQUAL(wire::format_iso_ms(-1), "1969-12-31T23:59:59.999Z");
  auto no_such_day = wire::parse_iso_ms("2026-02-30T00:00:00.000Z");
  CAF_REQUIRE(!no_such_day);
  CAF_CHECK_EQUAL(no_such_day.error().reason, "names a day that does not exist");
  auto not_a_time = wire::parse_iso_ms("2026-12-25 12:54:56.789Z");
  CAF_REQUIRE(!not_a_time);
  CAF_CHECK(not_a_time.error().code == errc::invalid_request);
  CAF_CHECK_EQUAL(not_a_time.error().reason, "is not a UTC time written YYYY-MM-DDTHH:MM:SS.mmmZ");
  CAF_CHECK_EQUAL(wire::utc_day(wire::ms_per_day - 1), 0);
  CAF_CHECK_EQUAL(wire::utc_day(wire::ms_per_day), 1);
}

// append_iso_ms writes the digits itself: it must give what the printf form gave, at every
// field's rollover, across leap days, before the epoch and past four-digit years.
CAF_TEST(iso time written by hand matches the printf form) {
  auto printf_form = [](std::int64_t ms) {
    using namespace std::chrono;
    auto day = wire::utc_day(ms);
    auto in_day = ms - day * wire::ms_per_day;
    year_month_day ymd{sys_days{days{day}}};
    char buf[64];
    std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02lld:%02lld:%02lld.%03lldZ", static_cast<int>(ymd.year()),
                  static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                  static_cast<long long>(in_day / 3'600'000), static_cast<long long>(in_day / 60'000 % 60),
                  static_cast<long long>(in_day / 1000 % 60), static_cast<long long>(in_day % 1000));
    return std::string{buf};
  };
  std::vector<std::int64_t> times{0, -1, 1, 999, 1000, 59'999, 60'000, 3'599'999, 3'600'000, wire::ms_per_day - 1,
                                  951'782'400'000 /* 2000-02-29 */, 4'107'456'000'000 /* 2100-02-28 */,
                                  253'402'300'799'999 /* 9999-12-31T23:59:59.999 */,
                                  253'402'300'800'000 /* 10000-01-01 */, -62'167'219'200'001 /* before year 0 */};
  for (std::int64_t t = 1'700'000'000'000; t < 1'700'000'000'000 + 400 * wire::ms_per_day; t += 7'777'777) times.push_back(t);
  for (auto t : times) {
    std::string appended = "x";
    wire::append_iso_ms(appended, t);
    CAF_CHECK_EQUAL(appended, "x" + printf_form(t));
    CAF_CHECK_EQUAL(wire::format_iso_ms(t), printf_form(t));
  }
}

CAF_TEST(canonical resources drop what does not identify a route) {
  auto canon = [&](std::string_view url, std::optional<std::string_view> tpl = std::nullopt) {
    auto parts = wire::parse_absolute_url(url);
    CAF_REQUIRE(parts.has_value());
    auto canonical = wire::canonical_resource(*parts, tpl);
    // The settle path's form, made from the text without the parts, is the same.
    auto direct = wire::canonical_resource_of(url, tpl);
    CAF_REQUIRE(direct.has_value());
    CAF_CHECK_EQUAL(*direct, canonical);
    // Appended after what the buffer holds, which stays.
    std::string appended = "kept";
    CAF_REQUIRE(wire::append_canonical_resource(appended, url, tpl).has_value());
    CAF_CHECK_EQUAL(appended, "kept" + canonical);
    return canonical;
  };
  CAF_CHECK_EQUAL(canon("HTTPS://API.Example.com:443/v1/x/?a=1#f"), "https://api.example.com/v1/x");
  CAF_CHECK_EQUAL(canon("http://api.example.com:80/"), "http://api.example.com/");
  CAF_CHECK_EQUAL(canon("https://api.example.com"), "https://api.example.com/");
  CAF_CHECK_EQUAL(canon("https://api.example.com:8443/a//"), "https://api.example.com:8443/a");
  CAF_CHECK_EQUAL(canon("https://u:p@api.example.com/users/7", std::string_view{"/users/:id"}), "https://api.example.com/users/:id");
  CAF_CHECK_EQUAL(canon("https://[::1]:9000/x"), "https://[::1]:9000/x");
  // An IPv6 literal without a port is a URL too, so its canonical form (default port dropped)
  // parses again (fuzz target url, tests/fuzz/regressions/url/).
  CAF_CHECK_EQUAL(canon("http://[::1]:80/x"), "http://[::1]/x");
  CAF_CHECK_EQUAL(canon("http://[::1]/x"), "http://[::1]/x");
  CAF_CHECK_EQUAL(canon("https://api.example.com/Case/Kept"), "https://api.example.com/Case/Kept");
}

CAF_TEST(malformed URLs are refused with a reason) {
  for (auto bad : {"no-scheme", "://x", "https://", "https://exa mple.com/", "https://a.com/ x", "https://a.com:0/",
                   "https://a.com:65536/", "https://a.com:12a/", "https://[zz]/", "https://[::1]:/", "https://[::1]x/", "https://a.com/\x01"}) {
    auto refused = wire::parse_absolute_url(bad);
    CAF_REQUIRE(!refused);
    CAF_CHECK(refused.error().code == errc::invalid_request);
    CAF_CHECK(!refused.error().reason.empty());
    auto direct = wire::canonical_resource_of(bad, std::nullopt);
    CAF_REQUIRE(!direct);
    CAF_CHECK(direct.error().code == errc::invalid_request);
    CAF_CHECK_EQUAL(direct.error().reason, refused.error().reason);
    std::string appended = "kept";
    CAF_CHECK(!wire::append_canonical_resource(appended, bad, std::nullopt));
    CAF_CHECK_EQUAL(appended, "kept");
  }
}

// A declaration's body is parsed into a document that owns its arena: the same value and the
// same refusals as parse_strict, its tree in storage that frees nothing node by node.
CAF_TEST(a strict JSON document holds the value parse_strict gives in an arena of its own) {
  std::string text = R"({"x402Version":2,"paymentPayload":{"resource":{"url":"https://a.example.com/r"},"payload":{"nonce":7}},)"
                     R"("tags":["a","b"],"big":18446744073709551615,"f":1.5,"n":null})";
  auto doc = wire::parse_strict_document(text, 8);
  auto plain = wire::parse_strict(text, 8);
  CAF_REQUIRE(doc && plain);
  CAF_CHECK_EQUAL(**doc, *plain);
  CAF_CHECK((*doc)->storage().is_not_shared_and_deallocate_is_trivial());
  auto nested = (*doc)->at("paymentPayload").at("resource").at("url");
  CAF_CHECK(nested.storage().is_not_shared_and_deallocate_is_trivial());
  // Larger than the first block the arena is given: it takes more blocks, the value is whole.
  std::string many = "[";
  for (int i = 0; i < 5000; ++i) many += (i ? "," : "") + std::string{R"({"k":"value )"} + std::to_string(i) + "\"}";
  many += "]";
  auto big = wire::parse_strict_document(many, 8);
  auto big_plain = wire::parse_strict(many, 8);
  CAF_REQUIRE(big && big_plain);
  CAF_CHECK_EQUAL(**big, *big_plain);
  CAF_CHECK_EQUAL((*big)->as_array().size(), 5000u);
  for (std::string bad : {std::string{R"({"a":1,"a":2})"}, std::string{"[1e400]"}, std::string{"{"}, std::string(9, '[') + std::string(9, ']')}) {
    auto refused = wire::parse_strict_document(bad, 8);
    auto refused_plain = wire::parse_strict(bad, 8);
    CAF_REQUIRE(!refused && !refused_plain);
    CAF_CHECK_EQUAL(refused.error().reason, refused_plain.error().reason);
  }
}

// A settle body is read into a flat document (no tree): it must take what parse_strict takes,
// hold the same value, and refuse the rest with the same reason. Most texts below are in the
// common form the flat reader's own scanner takes; the rest (and every refusal) it gives to
// Boost's tokenizer, and the result must not show which of the two read it.
CAF_TEST(a flat document reads what parse_strict reads and refuses the rest with its reasons) {
  wire::flat_json doc;  // one reader for every text: each read replaces the last
  std::string many = "[";
  for (int i = 0; i < 3000; ++i) many += (i ? "," : "") + std::string{R"({"k":"value )"} + std::to_string(i) + R"(","j":[)" + std::to_string(i) + "]}";
  many += "]";
  std::string wide = "{";
  for (int i = 0; i < 300; ++i) wide += (i ? "," : "") + std::string{"\"k"} + std::to_string(i * 7919 % 300) + "\":" + std::to_string(i);
  wide += "}";
  for (std::string good : {std::string{R"({"x402Version":2,"paymentPayload":{"resource":{"url":"https://a.example.com/r"},"payload":{"nonce":7}},"tags":["a","b"],"big":18446744073709551615,"f":1.5,"n":null,"t":true,"e":{},"z":[]})"},
                           std::string{R"(["q\"\\\u0001\u00e9\ud83d\ude00", -0, -0.0, 1e5, 5e-324, -9223372036854775808, 9223372036854775808])"},
                           std::string{R"(  "just a string"  )"}, std::string{"17"}, std::string{"null"}, std::string(8, '[') + std::string(8, ']'),
                           std::string{R"({"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}]})"}, many, wide,
                           // UTF-8 at the ends of each range of table 3-7, the short escapes, keys escaped and not sorted together.
                           std::string{"[\"\xc2\x80\xdf\xbf\xe0\xa0\x80\xe1\x80\x80\xec\xbf\xbf\xed\x80\x80\xed\x9f\xbf\xee\x80\x80\xef\xbf\xbf\",\"\xf0\x90\x80\x80\xf1\x80\x80\x80\xf3\xbf\xbf\xbf\xf4\x80\x80\x80\xf4\x8f\xbf\xbf\x7f\"]"},
                           std::string{R"({"b\n":"\b\f\n\r\t\/\\\"","a":"\"x","b":"y\"","\t":""})"},
                           // Integers at the scanner's 18 digits and past it (Boost's to read: int64, then uint64, then double),
                           // each alone, since one number the scanner does not read gives Boost the whole text.
                           std::string{"[0,-1,999999999999999999,-999999999999999999]"}, std::string{"[1000000000000000000]"},
                           std::string{"[-1000000000000000000]"}, std::string{"[9223372036854775807]"}, std::string{"[-9223372036854775808]"},
                           std::string{"[9999999999999999999]"}, std::string{"[-9999999999999999999]"}, std::string{"[18446744073709551616]"},
                           std::string{"[1.0]"}, std::string{"[2e3]"}, std::string{"[-0]"},
                           std::string{" \t\r\n{ \t\r\n\"a\" \t\r\n: \t\r\n[ 1 , 2 ] \t\r\n, \"b\":{ } } \t\r\n"},
                           std::string(7, '[') + std::string(7, ']'), std::string{R"({"a":{"a":{"a":{"a":{"a":{"a":{"a":1}}}}}}})"}}) {
    auto plain = wire::parse_strict(good, 8);
    CAF_REQUIRE(plain);
    CAF_REQUIRE(doc.read(good, 8));
    // Serialised, not compared: Boost's equality of objects ignores the order of their keys.
    CAF_CHECK_EQUAL(boost::json::serialize(doc.to_value(wire::flat_json::root)), boost::json::serialize(*plain));
  }
  // What ends a plain run (an escape, a multi-byte character, a control character, the closing
  // quote) at every place in and around a word of eight bytes, where the scanner tests eight at once.
  for (std::size_t at = 0; at < 20; ++at)
    for (std::string special : {std::string{"\\n"}, std::string{"\xc3\xa9"}, std::string{"\xf0\x9f\x98\x80"}, std::string{}, std::string{"\x1f"}}) {
      auto text = "[\"" + std::string(at, 'a') + special + std::string(19 - at, 'b') + "\",\"" + std::string(at, 'c') + "\"]";
      auto plain = wire::parse_strict(text, 8);
      auto flat = doc.read(text, 8);
      CAF_REQUIRE_EQUAL(flat.has_value(), plain.has_value());
      if (plain)
        CAF_CHECK_EQUAL(boost::json::serialize(doc.to_value(wire::flat_json::root)), boost::json::serialize(*plain));
      else
        CAF_CHECK_EQUAL(flat.error().reason, plain.error().reason);
    }
  // Deeper than the scanner recurses (128 levels), within what the caller allows: Boost's to read.
  for (std::size_t depth : {126, 127, 128, 129, 300}) {
    auto deep = std::string(depth, '[') + "1" + std::string(depth, ']');
    auto plain = wire::parse_strict(deep, 400);
    CAF_REQUIRE(plain && doc.read(deep, 400));
    CAF_CHECK_EQUAL(boost::json::serialize(doc.to_value(wire::flat_json::root)), boost::json::serialize(*plain));
  }
  for (std::string bad : {std::string{R"({"a":1,"a":2})"}, std::string{R"([{},{"k":1,"j":2,"k":3}])"}, std::string{R"({"a":{"x":1},"a":{"y":2,"z":3}})"},
                          std::string{R"({"a":{"x":{"q":1}},"b":[{"m":null,"m":null}]})"}, std::string{R"({"\u00e9":1,"\u00c3\u00a9":2,"\u00e9":3})"},
                          std::string{"[1e400]"}, std::string{"[1e400,]"}, std::string{R"({"n":1e400,"n":1})"}, std::string{R"({"n":1,"n":1e400})"},
                          std::string{"{"}, std::string{""}, std::string{"{\"a\":1} trailing"}, std::string{"{\"a\":\"\xff\"}"},
                          std::string{R"(["\ud800"])"}, std::string(9, '[') + std::string(9, ']'), many + "x",
                          // Not UTF-8: overlong forms, a surrogate, past U+10FFFF, a sequence cut short, a lone continuation byte.
                          std::string{"[\"\xc0\x80\"]"}, std::string{"[\"\xc1\xbf\"]"}, std::string{"[\"\xe0\x9f\xbf\"]"}, std::string{"[\"\xed\xa0\x80\"]"},
                          std::string{"[\"\xf0\x8f\xbf\xbf\"]"}, std::string{"[\"\xf4\x90\x80\x80\"]"}, std::string{"[\"\xf5\x80\x80\x80\"]"},
                          std::string{"[\"\xe2\x82\"]"}, std::string{"[\"\xe2\x82"}, std::string{"[\"\x80\"]"},
                          // A raw control character or tab in a string, an escape JSON does not have, a string not closed.
                          std::string{"[\"a\x01\"]"}, std::string{"[\"a\tb\"]"}, std::string{R"(["\x"])"}, std::string{R"(["\)"}, std::string{R"(["abc)"},
                          // Numbers JSON does not have, commas and colons out of place, words cut short, a second value.
                          std::string{"[01]"}, std::string{"[-01]"}, std::string{"[-]"}, std::string{"[-a]"}, std::string{"[1.]"}, std::string{"[.5]"},
                          std::string{"[+1]"}, std::string{"[1,]"}, std::string{R"({"a":1,})"}, std::string{"{,}"}, std::string{"[,1]"},
                          std::string{R"({"a" 1})"}, std::string{R"({"a":})"}, std::string{R"({a:1})"}, std::string{"[tru]"}, std::string{"[nul]"},
                          std::string{"[falsey]"}, std::string{R"({"a":1}})"}, std::string{"[1]]"}, std::string{"[1] [2]"}, std::string{"  "}}) {
    auto plain = wire::parse_strict(bad, 8);
    CAF_REQUIRE(!plain);
    auto flat = doc.read(bad, 8);
    CAF_REQUIRE(!flat);
    CAF_CHECK(flat.error().code == errc::invalid_request);
    CAF_CHECK_EQUAL(flat.error().reason, plain.error().reason);
  }
  // A refused text leaves nothing behind: every question answers "absent".
  CAF_CHECK(!doc.is_object(wire::flat_json::root));
  CAF_CHECK(!doc.string_at(wire::flat_json::root));
}

CAF_TEST(a flat document finds members by key and answers absent for a missing step at any depth) {
  wire::flat_json doc;
  CAF_REQUIRE(doc.read(R"({"b":{"url":"https://x","n":2,"u":18446744073709551615,"d":2.0,"s":"2"},"a":[1],"":"empty","z":null})", 8));
  using wire::flat_json;
  auto b = doc.member(flat_json::root, "b");
  CAF_CHECK(doc.is_object(b));
  CAF_CHECK_EQUAL(doc.string_at(doc.member(b, "url")), std::optional<std::string_view>{"https://x"});
  CAF_CHECK_EQUAL(doc.string_at(doc.member(flat_json::root, "")), std::optional<std::string_view>{"empty"});
  CAF_CHECK_EQUAL(doc.int64_at(doc.member(b, "n")), std::optional<std::int64_t>{2});
  // Only what Boost reads as an int64 is one: not a uint64, a double or a string of digits.
  CAF_CHECK(!doc.int64_at(doc.member(b, "u")));
  CAF_CHECK(!doc.int64_at(doc.member(b, "d")));
  CAF_CHECK(!doc.int64_at(doc.member(b, "s")));
  CAF_CHECK(!doc.string_at(doc.member(b, "n")));
  // Keys before, between and after the ones present; members of what is not an object.
  for (auto key : {"!", "aa", "c", "zz", "url"}) CAF_CHECK_EQUAL(doc.member(flat_json::root, key), flat_json::absent);
  CAF_CHECK_EQUAL(doc.member(doc.member(flat_json::root, "a"), "0"), flat_json::absent);
  CAF_CHECK_EQUAL(doc.member(doc.member(b, "url"), "x"), flat_json::absent);
  CAF_CHECK_EQUAL(doc.member(doc.member(doc.member(flat_json::root, "q"), "r"), "s"), flat_json::absent);
  CAF_CHECK(!doc.is_object(flat_json::absent));
  CAF_CHECK(!doc.string_at(flat_json::absent));
  CAF_CHECK(!doc.int64_at(flat_json::absent));
  CAF_CHECK(doc.member(flat_json::root, "z") != flat_json::absent);  // null is there, and not a string
  CAF_CHECK(!doc.string_at(doc.member(flat_json::root, "z")));
}

CAF_TEST(strict JSON refuses duplicate keys invalid UTF-8 and deep nesting) {
  CAF_CHECK(wire::parse_strict(R"({"a":1,"b":{"a":2}})", 8));
  auto duplicate = wire::parse_strict(R"({"a":1,"a":2})", 8);
  CAF_REQUIRE(!duplicate);
  CAF_CHECK(duplicate.error().code == errc::invalid_request);
  CAF_CHECK(duplicate.error().reason.find("\"a\"") != std::string::npos);
  CAF_CHECK(!wire::parse_strict(R"({"x":{"k":1,"k":1}})", 8));
  CAF_CHECK(!wire::parse_strict("{\"a\":\"\xff\"}", 8));
  CAF_CHECK(!wire::parse_strict(std::string(9, '[') + std::string(9, ']'), 8));
  CAF_CHECK(wire::parse_strict(std::string(8, '[') + std::string(8, ']'), 8));
  CAF_CHECK(!wire::parse_strict("{\"a\":1} trailing", 8));
  CAF_CHECK(!wire::parse_strict("", 8));
  // Beyond a double's range: Boost.JSON would keep infinity and write it back as `Infinity`,
  // which no JSON reader takes (fuzz target json_strict, tests/fuzz/regressions/json_strict/).
  for (std::string huge : {std::string{"[1e400]"}, std::string{"{\"a\":-1e309}"}, "[1" + std::string(400, '0') + ".5]"}) {
    auto refused = wire::parse_strict(huge, 8);
    CAF_REQUIRE(!refused);
    CAF_CHECK(refused.error().reason.find("range") != std::string::npos);
  }
  CAF_CHECK(wire::parse_strict("[1.7976931348623157e308,18446744073709551616,-9223372036854775809]", 8));
  // The value is built in one pass and a repeat is seen as a key fewer in the tree: at any depth,
  // inside arrays, and where the repeated key's first value is itself a tree.
  for (std::string repeated : {std::string{R"([{},{"k":1,"j":2,"k":3}])"}, std::string{R"({"a":{"x":1},"a":{"y":2,"z":3}})"},
                               std::string{R"({"a":{"x":{"q":1}},"b":[{"m":null,"m":null}]})"}}) {
    auto refused = wire::parse_strict(repeated, 8);
    CAF_REQUIRE(!refused);
    CAF_CHECK(refused.error().reason.find("repeats the key") != std::string::npos);
  }
  auto nested = wire::parse_strict(R"({"a":[1,{"b":"c","d":[true,false,null]}],"e":-2.5,"f":18446744073709551615})", 8);
  CAF_REQUIRE(nested);
  CAF_CHECK(*nested == boost::json::parse(R"({"a":[1,{"b":"c","d":[true,false,null]}],"e":-2.5,"f":18446744073709551615})"));
  // The first fault in the text is the one reported: a syntax error after a huge number is a
  // syntax error, a huge number before a repeated key is out of range, and the reverse a repeat.
  CAF_CHECK(wire::parse_strict("[1e400,]", 8).error().reason.find("not valid JSON") != std::string::npos);
  CAF_CHECK(wire::parse_strict(R"({"n":1e400,"n":1})", 8).error().reason.find("range") != std::string::npos);
  CAF_CHECK(wire::parse_strict(R"({"n":1,"n":1e400})", 8).error().reason.find("repeats") != std::string::npos);
  CAF_CHECK_EQUAL(wire::json_depth(boost::json::parse("[[{}]]")), 3u);
}

namespace {

// The canonical text of a JSON text, as a settle's payment is named by it.
std::string canonical(std::string_view text) {
  wire::flat_json doc;
  auto read = doc.read(text, 64);
  CAF_REQUIRE(read);
  std::string out;
  doc.write_canonical(wire::flat_json::root, out);
  return out;
}

}  // namespace

CAF_TEST(canonical JSON orders the keys of every object and drops white space and nothing else) {
  std::string_view text = R"({ "b" : [ {"z":1, "a":-2}, "q\"\\\u0001\u00e9" ], "a" : {"y":null,"x":true,"w":18446744073709551615,"v":1.5} })";
  auto out = canonical(text);
  CAF_CHECK_EQUAL(out, R"({"a":{"v":1.5E0,"w":18446744073709551615,"x":true,"y":null},"b":[{"a":-2,"z":1},"q\"\\\u0001)" "\xc3\xa9" R"("]})");
  CAF_CHECK(boost::json::parse(out) == boost::json::parse(text));  // the same value, read back (a double as Boost writes it: 1.5E0)
  CAF_CHECK_EQUAL(canonical(R"({"a":{},"b":[]})"), R"({"a":{},"b":[]})");
  // Escapes first, between plain runs and last; and the empty string.
  CAF_CHECK_EQUAL(canonical(R"("\"ab\u001fc\\\\d\\")"), R"("\"ab\u001fc\\\\d\\")");
  CAF_CHECK_EQUAL(canonical(R"("")"), R"("")");
}

// A payment's id is the SHA-256 of this text, and ids are kept in the catalog file and compared
// between nodes: the text must not change from one version to the next. These are what the
// earlier writer over Boost's tree gave for the same inputs: key order by unsigned byte,
// numbers as Boost reads and writes them, \u escapes resolved and written as bytes, U+007F kept.
CAF_TEST(canonical JSON is the text earlier versions gave for the same documents) {
  CAF_CHECK_EQUAL(canonical(R"({"b":1,"a":{"y":[1,2,{"q":null,"p":true}],"x":"s"}})"),
                  R"({"a":{"x":"s","y":[1,2,{"p":true,"q":null}]},"b":1})");
  CAF_CHECK_EQUAL(
      canonical(R"({"n":[0,-0,1.0,-1.5,1e5,1E-7,0.1,123456789012345678901,18446744073709551615,-9223372036854775808,9223372036854775808,2.5e300,-0.0,5e-324]})"),
      R"({"n":[0,0,1E0,-1.5E0,1E5,1E-7,1E-1,1.2345678901234567E20,18446744073709551615,-9223372036854775808,9223372036854775808,2.5E300,-0E0,5E-324]})");
  CAF_CHECK_EQUAL(canonical(R"({"\u00e9":1,"e":2,"\u0000k":3,"z\"":4,"Z":5,"f\u00ff":6,"f~":7})"),
                  "{\"\\u0000k\":3,\"Z\":5,\"e\":2,\"f~\":7,\"f\xc3\xbf\":6,\"z\\\"\":4,\"\xc3\xa9\":1}");
  CAF_CHECK_EQUAL(canonical(R"({"s":"tab\there \"quoted\" back\\slash \u0001 \u001f \u007f \u00e9 \ud83d\ude00 /"})"),
                  "{\"s\":\"tab\\u0009here \\\"quoted\\\" back\\\\slash \\u0001 \\u001f \x7f \xc3\xa9 \xf0\x9f\x98\x80 /\"}");
  CAF_CHECK_EQUAL(canonical(R"([{"b":[],"a":{}},"x",false,null])"), R"([{"a":{},"b":[]},"x",false,null])");
  CAF_CHECK_EQUAL(
      canonical(R"({"payload":{"nonce":"0x1234","signature":"0xabcdef","authorization":{"from":"0x1","to":"0x2","value":"1000","validAfter":"0","validBefore":"99"}},"x402Version":2,"resource":{"url":"https://a.example/x"},"accepted":{"scheme":"exact","amount":"1000"}})"),
      R"({"accepted":{"amount":"1000","scheme":"exact"},"payload":{"authorization":{"from":"0x1","to":"0x2","validAfter":"0","validBefore":"99","value":"1000"},"nonce":"0x1234","signature":"0xabcdef"},"resource":{"url":"https://a.example/x"},"x402Version":2})");
}

CAF_TEST(a canonical string escapes exactly the quote and the backslash and the controls wherever they fall) {
  // Plain runs are scanned eight bytes at a time: every byte a string can hold (every ASCII byte,
  // and every byte of UTF-8: continuation bytes, two-, three- and four-byte leads) at every
  // offset of a word, and across the end of one, in strings of up to 24 bytes, against a
  // byte-by-byte reference. The reference's text is also the input: canonical text is a fixed point.
  auto reference = [](std::string_view text) {
    static constexpr char hex[] = "0123456789abcdef";
    std::string out = "\"";
    for (unsigned char c : text) {
      if (c == '"' || c == '\\') out.append({'\\', static_cast<char>(c)});
      else if (c < 0x20) out.append({'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]});
      else out += static_cast<char>(c);
    }
    return out + '"';
  };
  std::vector<std::string> units;
  for (int c = 0; c < 0x80; ++c) units.push_back(std::string(1, static_cast<char>(c)));
  for (int c = 0x80; c < 0xc0; ++c) units.push_back(std::string{'\xc2', static_cast<char>(c)});
  for (int c = 0xc2; c < 0xe0; ++c) units.push_back(std::string{static_cast<char>(c), '\x80'});
  for (int c = 0xe1; c < 0xf0; ++c) units.push_back(std::string{static_cast<char>(c), '\x80', '\x80'});
  for (int c = 0xf1; c < 0xf4; ++c) units.push_back(std::string{static_cast<char>(c), '\x80', '\x80', '\x80'});
  for (auto special : {"\xe0\xa0\x80", "\xed\x9f\xbf", "\xf0\x90\x80\x80", "\xf4\x8f\xbf\xbf"}) units.push_back(special);
  int mismatches = 0;
  for (std::size_t length = 1; length <= 24; ++length)
    for (std::size_t at = 0; at < length; ++at)
      for (auto& unit : units) {
        std::string text = std::string(at, 'a') + unit + std::string(length - at - 1, 'a');
        if (canonical(reference(text)) != reference(text)) ++mismatches;
      }
  CAF_CHECK_EQUAL(mismatches, 0);
}

CAF_TEST(every error code has its API name and one HTTP status) {
  CAF_CHECK_EQUAL(to_string(errc::invalid_filter), "invalid_filter");
  CAF_CHECK_EQUAL(http_status(errc::invalid_filter), 400u);
  CAF_CHECK_EQUAL(http_status(errc::invalid_cursor), 400u);
  CAF_CHECK_EQUAL(http_status(errc::query_required), 400u);
  CAF_CHECK_EQUAL(http_status(errc::unauthorized), 401u);
  CAF_CHECK_EQUAL(http_status(errc::forbidden), 403u);
  CAF_CHECK_EQUAL(http_status(errc::not_found), 404u);
  CAF_CHECK_EQUAL(http_status(errc::unavailable), 503u);
  // Every code has a name of its own.
  std::set<std::string_view> names;
  for (auto c = static_cast<int>(errc::invalid_request); c <= static_cast<int>(errc::timed_out); ++c)
    names.insert(to_string(static_cast<errc>(c)));
  CAF_CHECK_EQUAL(names.size(), static_cast<std::size_t>(errc::timed_out));
  // A client of the API reads the code back from its name (the kit does from a refusal).
  for (auto c = static_cast<int>(errc::invalid_request); c <= static_cast<int>(errc::timed_out); ++c)
    CAF_CHECK(errc_from_string(to_string(static_cast<errc>(c))) == static_cast<errc>(c));
  CAF_CHECK(!errc_from_string("teapot").has_value());
  CAF_CHECK(!errc_from_string("").has_value());
  CAF_CHECK_EQUAL(http_status(errc::invalid_request), 400u);
  CAF_CHECK_EQUAL(http_status(errc::catalog_full), 400u);
  auto res = http::error_response(error{errc::not_found, "", "no provider lists it"});
  CAF_CHECK_EQUAL(res.result_int(), 404u);
  auto said = boost::json::parse(res.body());
  CAF_CHECK_EQUAL(said.at("error").as_string(), "not_found");
}

CAF_TEST(a listen address is HOST:PORT and port 0 only where any port will do) {
  auto read = [](std::string_view text, bool any_port) { return config::parse_listen_address(text, any_port); };
  auto v4 = read("127.0.0.1:3000", false), v6 = read("[::1]:8080", false), top = read("127.0.0.1:65535", false);
  CAF_REQUIRE(v4 && v6 && top);
  CAF_CHECK_EQUAL(v4->host, "127.0.0.1");
  CAF_CHECK_EQUAL(v4->port, 3000u);
  CAF_CHECK_EQUAL(v6->host, "::1");
  // Written back as it is read: an IPv6 host in brackets, so "[::1]:8080" and not "::1:8080".
  auto v4_text = config::to_string(*v4), v6_text = config::to_string(*v6);
  CAF_CHECK_EQUAL(v4_text, "127.0.0.1:3000");
  CAF_CHECK_EQUAL(v6_text, "[::1]:8080");
  auto v6_again = read(v6_text, false);
  CAF_REQUIRE(v6_again);
  CAF_CHECK_EQUAL(v6_again->host, "::1");
  CAF_CHECK(read("127.0.0.1:0", true));
  CAF_CHECK_EQUAL(top->port, 65535u);
  for (auto bad : {"127.0.0.1:0", "127.0.0.1:65536", "nowhere", ":80", "host:", "host:8x", "host:-1"}) {
    auto address = read(bad, false);
    CAF_REQUIRE(!address);
    CAF_CHECK(address.error().code == errc::invalid_request);
    CAF_CHECK_EQUAL(address.error().field, "listen");
  }
}

CAF_TEST(loopback is an address in 127.0.0.0/8 or ::1 and never a name) {
  for (auto yes : {"127.0.0.1", "127.255.0.9", "::1"}) CAF_CHECK(config::is_loopback(yes));
  // A name that looks like one is not: a plain cluster link must not reach another machine.
  for (auto no : {"127.attacker.example", "127.0.0.1.nip.io", "localhost", "10.0.0.1", "::2", "0.0.0.0", ""})
    CAF_CHECK(!config::is_loopback(no));
}

CAF_TEST(percent decoding reads a query strictly and a path leniently) {
  using wire::percent_decoding;
  // Each result held in a variable: CAF_CHECK_EQUAL keeps a view of its arguments.
  auto decoded = [](std::string_view s, percent_decoding how) {
    auto out = wire::percent_decode(s, how);
    return out ? *out : std::string{"<refused>"};
  };
  auto form = decoded("a+b%26c%3a", percent_decoding::form);
  CAF_CHECK_EQUAL(form, "a b&c:");
  auto lenient = decoded("a+b%26c", percent_decoding::lenient);
  CAF_CHECK_EQUAL(lenient, "a+b&c");
  for (std::string malformed : {"%", "%4", "%zz", "a%4g", "%%41"}) {
    auto refused = wire::percent_decode(malformed, percent_decoding::form);
    CAF_REQUIRE(!refused);
    CAF_CHECK(refused.error().code == errc::invalid_request);
    CAF_CHECK_EQUAL(refused.error().reason, "has a malformed percent-escape (% not followed by two hex digits)");
    auto kept = decoded(malformed, percent_decoding::lenient);
    CAF_CHECK_EQUAL(kept, malformed == "%%41" ? std::string{"%A"} : malformed);
  }
  auto once = decoded("%252e", percent_decoding::lenient);
  CAF_CHECK_EQUAL(once, "%2e");
}

CAF_TEST(address-like hosts are recognised) {
  for (auto h : {"127.0.0.1", "[::1]", "localhost", "a.localhost", "2130706433", "0x7f000001", "7f000001"})
    CAF_CHECK(wire::is_address_like_host(h));
  for (auto h : {"cdn.example.com", "icons.z402.dev"}) CAF_CHECK(!wire::is_address_like_host(h));
}

CAF_TEST(standard base64 round trips and refuses what is not padded base64) {
  for (const std::string& text : std::vector<std::string>{"", "a", "ab", "abc", "{\"x402Version\":2}", std::string("\0\xff\xfe", 3)}) {
    auto decoded = wire::base64_decode(wire::base64_encode(text));
    CAF_REQUIRE(decoded.has_value());
    CAF_CHECK_EQUAL(*decoded, text);
  }
  for (std::string_view bad : {"abc", "ab=c", "a===", "ab-_", "YW*j", "YWJj\n", "====="})
    CAF_CHECK(!wire::base64_decode(bad).has_value());
  auto url = wire::base64url_decode("-_8");
  CAF_REQUIRE(url.has_value());
  CAF_CHECK_EQUAL(*url, std::string("\xfb\xff", 2));
  CAF_CHECK(!wire::base64url_decode("+/8").has_value());
}

CAF_TEST(base64 refuses padding bits that are not zero) {
  // "A" is QQ== and "AB" is QUI=; R and J differ from Q and I only in bits the padding leaves unused.
  CAF_CHECK_EQUAL(wire::base64_decode("QQ==").value_or("?"), "A");
  CAF_CHECK_EQUAL(wire::base64_decode("QUI=").value_or("?"), "AB");
  for (std::string_view bad : {"QR==", "QX==", "QUJ=", "QUL="}) CAF_CHECK(!wire::base64_decode(bad).has_value());
  CAF_CHECK_EQUAL(wire::base64url_decode("QQ").value_or("?"), "A");
  CAF_CHECK_EQUAL(wire::base64url_decode("__8").value_or("?"), std::string("\xff\xff", 2));
  for (std::string_view bad : {"QR", "QUJ", "__9"}) CAF_CHECK(!wire::base64url_decode(bad).has_value());
}
