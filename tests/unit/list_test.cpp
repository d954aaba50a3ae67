#define CAF_SUITE list
#include "test.hpp"

#include "fixtures.hpp"
#include "routes/gzip_cache.hpp"
#include "routes/list_query.hpp"
#include "routes/mcp_repeats.hpp"
#include "routes/page_files.hpp"
#include "routes/read_response.hpp"
#include "z402/core/gzip.hpp"
#include "z402/wire/iso_time.hpp"

#include <unistd.h>
#include <zlib.h>

using namespace z402;

namespace {

catalog::item_ptr item_of(std::string provider, std::string pay_to, std::string type, std::uint64_t seq,
                          bool with_bazaar = true, std::uint32_t calls30d = 0) {
  auto terms = config::default_rail_terms();
  auto fields = test::valid_item(terms, "https://" + provider + ".example.com/r" + std::to_string(seq));
  fields["type"] = type;
  fields["accepts"].as_array()[0].as_object()["payTo"] = pay_to;
  if (!with_bazaar) fields["extensions"].as_object().erase("bazaar");
  catalog::item_record r;
  r.provider = provider;
  r.identity = {type, fields["resource"].as_string().c_str(), "GET"};
  r.content = catalog::make_content(fields, "GET");
  r.seq = seq;
  r.last_seen_ms = 1'000;
  r.last_updated_ms = 1'000;
  for (std::uint32_t i = 0; i < calls30d; ++i) r.usage.count(40 - i % 3, 2'000);  // over the 30 days that end with day 40
  return catalog::make_item(std::move(r), 40);
}

catalog::snapshot sample() {
  catalog::snapshot s;
  s.items = {item_of("a", "payA", "http", 1), item_of("b", "payB", "mcp", 2), item_of("a", "payA", "http", 3, false),
             item_of("c", "payC", "http", 4)};
  return s;
}

boost::json::object render(const catalog::snapshot& s, std::string_view query) {
  auto req = routes::parse_list_request(query);
  CAF_REQUIRE(req.has_value());
  catalog::snapshot_ptr borrowed{std::shared_ptr<void>{}, &s};  // not owned: `s` outlives the call
  return boost::json::parse(routes::render_list(borrowed, *req).flatten()).as_object();
}

// The page's pagination.total, by value: a check's operand must not refer into a temporary page
// (CAF_CHECK_EQUAL binds it with auto&& and reads it after the full expression).
std::int64_t total_of(const catalog::snapshot& s, std::string_view query) {
  return render(s, query).at("pagination").at("total").as_int64();
}

}  // namespace

CAF_TEST(limit defaults to 100 and is clamped to 1 to 1000) {
  auto limit_of = [&](std::string_view q) { return routes::parse_list_request(q)->limit; };
  CAF_CHECK_EQUAL(limit_of(""), 100u);
  CAF_CHECK_EQUAL(limit_of("limit=0"), 100u);
  CAF_CHECK_EQUAL(limit_of("limit=abc"), 100u);
  CAF_CHECK_EQUAL(limit_of("limit=1"), 1u);
  CAF_CHECK_EQUAL(limit_of("limit=1000"), 1000u);
  CAF_CHECK_EQUAL(limit_of("limit=1001"), 1000u);
  CAF_CHECK_EQUAL(limit_of("limit=-4"), 1u);
  CAF_CHECK_EQUAL(limit_of("limit=99999999999999999999999"), 1000u);
}

CAF_TEST(malformed parameters are refused by name) {
  // A malformed escape is no parameter's: the field is empty.
  for (auto [q, field] : {std::pair{"offset=-1", "offset"}, std::pair{"offset=x", "offset"},
                          std::pair{"offset=", "offset"}, std::pair{"type=ftp", "type"}, std::pair{"payTo=", "payTo"},
                          std::pair{"network=%zz", ""}, std::pair{"type=http&type=mcp", "type"},
                          std::pair{"scheme=%00", "scheme"}, std::pair{"asset=%ff", "asset"}}) {
    auto req = routes::parse_list_request(q);
    CAF_REQUIRE(!req);
    CAF_CHECK(req.error().code == errc::invalid_filter);
    CAF_CHECK_EQUAL(req.error().field, field);
  }
  CAF_CHECK(routes::parse_list_request("unknown=1&x"));
}

CAF_TEST(sort by 30 days of calls and minCalls30d page like the list and refuse bad values by name) {
  catalog::snapshot s;
  // Calls in 30 days: r1 5, r2 0, r3 9, r4 5, r5 1 (r3 of payB).
  s.items = {item_of("a", "payA", "http", 1, true, 5), item_of("a", "payA", "http", 2, true, 0),
             item_of("b", "payB", "http", 3, true, 9), item_of("a", "payA", "http", 4, true, 5),
             item_of("a", "payA", "http", 5, true, 1)};
  auto urls = [&](std::string_view q) {
    std::string out;
    auto page = render(s, q);
    for (auto& it : page.at("items").as_array())
      out += std::string{it.at("resource").as_string()}.substr(22) + " ";  // "https://a.example.com/" is 22 bytes
    return out;
  };
  CAF_CHECK_EQUAL(urls("sort=calls30d"), "r3 r1 r4 r5 r2 ");  // ties keep listing order
  CAF_CHECK_EQUAL(urls("sort=calls30d&limit=2&offset=1"), "r1 r4 ");
  CAF_CHECK_EQUAL(total_of(s, "sort=calls30d&minCalls30d=5"), 3);
  CAF_CHECK_EQUAL(urls("sort=calls30d&minCalls30d=5&payTo=payA"), "r1 r4 ");
  CAF_CHECK_EQUAL(urls("minCalls30d=1"), "r1 r3 r4 r5 ");  // listing order
  CAF_CHECK_EQUAL(urls("minCalls30d=5&payTo=payA"), "r1 r4 ");
  CAF_CHECK_EQUAL(total_of(s, "minCalls30d=9"), 1);   // at the most paid
  CAF_CHECK_EQUAL(total_of(s, "minCalls30d=10"), 0);  // past it
  CAF_CHECK_EQUAL(total_of(s, "minCalls30d=0"), 5);
  // callsByDay=1: each item as the plain page shows it, with its 30 days last (the Services page).
  auto plain = render(s, "sort=calls30d").at("items").as_array();
  auto with_days = render(s, "sort=calls30d&callsByDay=true").at("items").as_array();
  CAF_REQUIRE_EQUAL(with_days.size(), plain.size());
  for (std::size_t i = 0; i < plain.size(); ++i) {
    auto item = with_days[i].as_object();
    auto days = item.at("callsByDay").as_array();
    CAF_REQUIRE_EQUAL(days.size(), 30u);
    CAF_CHECK_EQUAL(days.back().as_int64(), item.at("quality").at("l30DaysTotalCalls").as_int64());
    item.erase("callsByDay");
    CAF_CHECK(item == plain[i].as_object());
  }
  CAF_CHECK(!render(s, "callsByDay=0").at("items").at(0).as_object().contains("callsByDay"));
  auto first = render(s, "sort=calls30d").at("items").at(0).at("quality");
  CAF_CHECK_EQUAL(boost::json::serialize(first), R"({"l30DaysTotalCalls":9,"lastCalledAt":"1970-01-01T00:00:02.000Z"})");
  for (auto [q, field] : {std::pair{"sort=price", "sort"}, std::pair{"sort=", "sort"}, std::pair{"minCalls30d=-1", "minCalls30d"},
                          std::pair{"minCalls30d=x", "minCalls30d"}, std::pair{"minCalls30d=", "minCalls30d"},
                          std::pair{"minCalls30d=99999999999999999999999", "minCalls30d"}, std::pair{"callsByDay=yes", "callsByDay"},
                          std::pair{"callsByDay=", "callsByDay"}}) {
    auto req = routes::parse_list_request(q);
    CAF_REQUIRE(!req);
    CAF_CHECK(req.error().code == errc::invalid_filter);
    CAF_CHECK_EQUAL(req.error().field, field);
  }
}

CAF_TEST(form decoding turns plus into space and percent escapes into bytes) {
  auto params = routes::parse_query("network=zcash%3Aregtest&q=a+b%26c");
  CAF_REQUIRE(params);
  CAF_CHECK_EQUAL(params->at("network"), "zcash:regtest");
  CAF_CHECK_EQUAL(params->at("q"), "a b&c");
}

CAF_TEST(filters combine with AND and total counts every match) {
  auto s = sample();
  auto all = render(s, "");
  CAF_CHECK_EQUAL(all.at("x402Version").as_int64(), 2);
  CAF_CHECK_EQUAL(all.at("items").as_array().size(), 4u);
  CAF_CHECK_EQUAL(all.at("pagination").at("total").as_int64(), 4);
  CAF_CHECK_EQUAL(total_of(s, "type=mcp"), 1);
  CAF_CHECK_EQUAL(total_of(s, "payTo=payA"), 2);
  CAF_CHECK_EQUAL(total_of(s, "payTo=payA&extensions=bazaar"), 1);
  CAF_CHECK_EQUAL(total_of(s, "network=zcash%3Aregtest&scheme=prepaid-voucher&asset=ZEC"), 4);
  CAF_CHECK_EQUAL(total_of(s, "network=eip155%3A8453"), 0);
  CAF_CHECK_EQUAL(total_of(s, "extensions=z402"), 4);
}

CAF_TEST(pages keep listing order and cover every row once) {
  auto s = sample();
  auto page = render(s, "limit=2&offset=1");
  auto& items = page.at("items").as_array();
  CAF_REQUIRE_EQUAL(items.size(), 2u);
  CAF_CHECK_EQUAL(items[0].at("resource").as_string(), "https://b.example.com/r2");
  CAF_CHECK_EQUAL(items[1].at("resource").as_string(), "https://a.example.com/r3");
  CAF_CHECK_EQUAL(page.at("pagination").at("limit").as_int64(), 2);
  CAF_CHECK_EQUAL(page.at("pagination").at("offset").as_int64(), 1);
  auto filtered = render(s, "type=http&limit=1&offset=2");
  CAF_CHECK_EQUAL(filtered.at("items").as_array()[0].at("resource").as_string(), "https://c.example.com/r4");
  auto beyond = render(s, "offset=10");
  CAF_CHECK(beyond.at("items").as_array().empty());
  CAF_CHECK_EQUAL(beyond.at("pagination").at("total").as_int64(), 4);
}

CAF_TEST(an item is served with its timestamps as ISO strings) {
  auto s = sample();
  auto first = render(s, "limit=1").at("items").as_array()[0].as_object();
  CAF_CHECK_EQUAL(first.at("lastUpdated").as_string(), wire::format_iso_ms(1000));
  CAF_CHECK_EQUAL(first.at("lastSeen").as_string(), wire::format_iso_ms(1000));
  CAF_CHECK_EQUAL(first.at("paidCallsToday").as_int64(), 0);
  CAF_CHECK(first.contains("accepts"));
}

namespace {

/// An item with one accepts entry per (asset, amount).
catalog::item_ptr priced(std::uint64_t seq, std::vector<std::pair<std::string, std::string>> prices) {
  auto fields = test::valid_item(config::default_rail_terms(), "https://p.example.com/r" + std::to_string(seq));
  auto& accepts = fields["accepts"].as_array();
  auto entry = accepts[0].as_object();
  accepts.clear();
  for (auto& [asset, amount] : prices) {
    entry["asset"] = asset;
    entry["amount"] = amount;
    accepts.push_back(entry);
  }
  catalog::item_record r;
  r.provider = "p";
  r.identity = {"http", fields["resource"].as_string().c_str(), "GET"};
  r.content = catalog::make_content(fields, "GET");
  r.seq = seq;
  return catalog::make_item(std::move(r), 0);
}

std::vector<std::string> resources(const boost::json::object& page) {
  std::vector<std::string> out;
  for (auto& it : page.at("items").as_array()) out.emplace_back(it.at("resource").as_string().c_str());
  return out;
}

}  // namespace

CAF_TEST(maxAmount keeps items with an entry at most that price and of the filtered asset) {
  catalog::snapshot s;
  s.items = {priced(1, {{"ZEC", "1000"}}), priced(2, {{"ZEC", "5000"}, {"USDC", "10"}}), priced(3, {{"USDC", "999"}}),
             priced(4, {{"ZEC", "18446744073709551615"}})};
  auto r = [](int n) { return "https://p.example.com/r" + std::to_string(n); };
  CAF_CHECK_EQUAL(resources(render(s, "maxAmount=1000")), (std::vector<std::string>{r(1), r(2), r(3)}));  // at the limit
  CAF_CHECK_EQUAL(resources(render(s, "maxAmount=999")), (std::vector<std::string>{r(2), r(3)}));         // one below it
  CAF_CHECK_EQUAL(resources(render(s, "maxAmount=9")), (std::vector<std::string>{}));
  CAF_CHECK_EQUAL(resources(render(s, "maxAmount=1000&asset=ZEC")), (std::vector<std::string>{r(1)}));
  CAF_CHECK_EQUAL(resources(render(s, "maxAmount=10&asset=USDC")), (std::vector<std::string>{r(2)}));
  CAF_CHECK_EQUAL(resources(render(s, "maxAmount=18446744073709551615&asset=ZEC")), (std::vector<std::string>{r(1), r(2), r(4)}));
  CAF_CHECK_EQUAL(resources(render(s, "maxAmount=0")), (std::vector<std::string>{}));
  CAF_CHECK_EQUAL(total_of(s, "maxAmount=1000&limit=2"), 3);
  for (auto bad : {"maxAmount=18446744073709551616", "maxAmount=-1", "maxAmount=", "maxAmount=1e3", "maxAmount=+5",
                   "maxAmount=%201", "maxAmount=12abc"}) {
    auto req = routes::parse_list_request(bad);
    CAF_REQUIRE(!req);
    CAF_CHECK(req.error().code == errc::invalid_filter);
    CAF_CHECK_EQUAL(req.error().field, "maxAmount");
  }
}

/// What a gzip reader (zlib, as curl and Node's fetch use it) makes of `member`: its text, or
/// "invalid" when it is not one whole, valid member (its CRC-32 and length checked).
std::string gunzip(std::string_view member) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 16) != Z_OK) return "invalid";
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(member.data()));
  zs.avail_in = static_cast<uInt>(member.size());
  std::string out;
  int rc = Z_OK;
  char buffer[16384];
  while (rc == Z_OK) {
    zs.next_out = reinterpret_cast<Bytef*>(buffer);
    zs.avail_out = sizeof buffer;
    rc = inflate(&zs, Z_NO_FLUSH);
    out.append(buffer, sizeof buffer - zs.avail_out);
  }
  bool whole = rc == Z_STREAM_END && zs.avail_in == 0;
  inflateEnd(&zs);
  return whole ? out : "invalid";
}

CAF_TEST(a gzip member framed around text deflated once reads as the head then the text then the tail) {
  std::string text;
  for (int i = 0; i < 2000; ++i) text += R"({"resource":"https://a.example.com/r)" + std::to_string(i) + R"(","x402Version":2},)";
  auto middle = compression::deflate_blocks(text);
  CAF_CHECK_LESS(middle.blocks.size(), text.size() / 4);
  auto member = [&](std::string_view head, std::string_view tail) {
    auto f = compression::frame_gzip(head, middle, tail);
    return f.before + middle.blocks + f.after;
  };
  const std::string head = R"({"jsonrpc":"2.0","id":7,"result":)";
  CAF_CHECK_EQUAL(gunzip(member(head, "}")), head + text + "}");
  CAF_CHECK_EQUAL(gunzip(member("", "")), text);
  // A head longer than one stored block holds (65,535 bytes) goes in several.
  const std::string long_head(70'000, 'h');
  CAF_CHECK_EQUAL(gunzip(member(long_head, "}")), long_head + text + "}");
  // The same blocks framed for another request: only the head and the trailer differ.
  auto other = compression::frame_gzip(R"({"jsonrpc":"2.0","id":"b","result":)", middle, "}");
  CAF_CHECK_EQUAL(gunzip(other.before + middle.blocks + other.after), R"({"jsonrpc":"2.0","id":"b","result":)" + text + "}");
  // A reader checks the trailer: a member whose CRC-32 is off is refused.
  auto broken = member(head, "}");
  broken[broken.size() - 8] ^= 1;
  CAF_CHECK_EQUAL(gunzip(broken), "invalid");
}

CAF_TEST(the plain id of a message is found at its top level and nowhere else) {
  auto id_of = [](std::string_view m) -> std::string {
    auto span = routes::plain_id_span(m);
    return span ? std::string{m.substr(span->first, span->second)} : std::string{"none"};
  };
  CAF_CHECK_EQUAL(id_of(R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"arguments":{"id":1}}})"), "7");
  CAF_CHECK_EQUAL(id_of(R"( { "id" : "a-b c" , "method":"m"} )"), R"("a-b c")");
  // Braces, commas and an "id" inside strings and nested values are skipped.
  CAF_CHECK_EQUAL(id_of(R"({"method":"m","params":{"q":"},\"id\":5","l":[{"id":3}]},"id":12})"), "12");
  CAF_CHECK_EQUAL(id_of(R"({"id":18446744073709551615})"), "18446744073709551615");
  CAF_CHECK_EQUAL(id_of(R"({"id":-9223372036854775808})"), "-9223372036854775808");
  // Anything else takes the full path.
  for (auto m : {R"({"method":"m"})", R"({"id":1,"id":2})", R"({"id":null})", R"({"id":1.5})", R"({"id":1e3})", R"({"id":-0})",
                 R"({"id":01})", R"({"id":18446744073709551616})", R"({"id":"s\u0065ven"})", "{\"id\":\"caf\xc3\xa9\"}", R"({"id":[1]})",
                 R"([{"id":1}])", R"({"id":1} x)", R"({"id":1)", R"({"id":"open)", R"({"id":})", ""})
    CAF_CHECK_EQUAL(id_of(m), "none");
}

CAF_TEST(a message is answered again from memory only at the same version for the same owner and bytes but the id) {
  auto result = std::make_shared<const mcp::kept_result>(mcp::kept_result{R"({"content":[]})", std::nullopt, nullptr});
  int owner = 0, other = 0;
  const std::string first = R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_resources"}})";
  routes::remember_repeat(&owner, first, {1, 5}, result);
  auto again = routes::find_repeat(&owner, R"({"jsonrpc":"2.0","id":"two","method":"tools/call","params":{"name":"list_resources"}})", {1, 5});
  CAF_REQUIRE(again);
  CAF_CHECK_EQUAL(again->id, R"("two")");
  CAF_CHECK(again->result == result);
  again.reset();
  CAF_CHECK(!routes::find_repeat(&other, first, {1, 5}));
  CAF_CHECK(!routes::find_repeat(&owner, R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_resource"}})", {1, 5}));
  CAF_CHECK(!routes::find_repeat(&owner, first, {2, 5}));  // another run: let go
  CAF_CHECK(!routes::find_repeat(&owner, first, {1, 5}));
  routes::remember_repeat(&owner, first, {1, 5}, result);
  CAF_CHECK(!routes::find_repeat(&owner, first, {1, 6}));  // a newer version: let go
  CAF_CHECK(!routes::find_repeat(&owner, first, {1, 5}));
  CAF_CHECK_EQUAL(result.use_count(), 1);  // nothing holds the result any more
}

CAF_TEST(a page is compressed once per ETag and once compressed is not rendered again) {
  routes::gzip_cache gzip{routes::gzip_cache_budget};
  routes::page_files files{routes::page_files_budget};
  http::request req{http::bhttp::verb::get, "/discovery/resources", 11};
  req.set(http::bhttp::field::accept_encoding, "gzip, deflate");
  const std::string text(4096, 'x');
  int renders = 0;
  auto page = [&] {
    ++renders;
    return http::response_text{text};
  };
  auto encoding = [](const http::response& res) { return std::string{res[http::bhttp::field::content_encoding]}; };
  // A reader that comes while another one compresses the page neither waits nor compresses it
  // again: it answers the page uncompressed.
  auto first = gzip.find_or_claim(routes::cache_key(routes::etag_text{"\"7-a\"", {1, 7}}, req), {1, 7});
  CAF_REQUIRE(first.claim);
  auto meanwhile = routes::read_response(req, routes::etag_text{"\"7-a\"", {1, 7}}, page, {gzip, files});
  CAF_CHECK_EQUAL(encoding(meanwhile), "");
  CAF_CHECK_EQUAL(meanwhile.body().flatten(), text);
  CAF_CHECK_EQUAL(gzip.deferred.value(), 1u);
  gzip.release(std::move(first.claim));
  // The next reader compresses it; later readers of the same version get the same bytes,
  // neither compressed nor rendered again.
  auto compressed = routes::read_response(req, routes::etag_text{"\"7-a\"", {1, 7}}, page, {gzip, files});
  CAF_CHECK_EQUAL(encoding(compressed), "gzip");
  CAF_CHECK_EQUAL(compressed.body().flatten(), compression::gzip(std::string_view{text}));
  CAF_CHECK_EQUAL(renders, 2);
  for (int i = 0; i < 3; ++i) {
    auto again = routes::read_response(req, routes::etag_text{"\"7-a\"", {1, 7}}, page, {gzip, files});
    CAF_CHECK_EQUAL(again.body().flatten(), compressed.body().flatten());
    CAF_CHECK_EQUAL(again[http::bhttp::field::content_length], compressed[http::bhttp::field::content_length]);
  }
  CAF_CHECK_EQUAL(renders, 2);
  CAF_CHECK_EQUAL(gzip.made.value(), 1u);
  CAF_CHECK_EQUAL(gzip.hits.value(), 3u);
  // Another target whose ETag is the same text (its hash made to meet this one's) is another
  // page: it is rendered, never answered with this one's bytes.
  http::request crafted{http::bhttp::verb::get, "/discovery/search?query=crafted", 11};
  crafted.set(http::bhttp::field::accept_encoding, "gzip");
  const std::string other(4096, 'o');
  auto theirs = routes::read_response(crafted, routes::etag_text{"\"7-a\"", {1, 7}}, [&] { return http::response_text{other}; }, {gzip, files});
  CAF_CHECK_EQUAL(theirs.body().flatten(), compression::gzip(std::string_view{other}));
  auto ours = routes::read_response(req, routes::etag_text{"\"7-a\"", {1, 7}}, page, {gzip, files});
  CAF_CHECK_EQUAL(ours.body().flatten(), compressed.body().flatten());
  CAF_CHECK_EQUAL(gzip.made.value(), 2u);
  CAF_CHECK_EQUAL(renders, 2);
  // A new version is a new page.
  auto next = routes::read_response(req, routes::etag_text{"\"8-a\"", {1, 8}}, page, {gzip, files});
  CAF_CHECK_EQUAL(encoding(next), "gzip");
  CAF_CHECK(next.body().file == nullptr);  // 4 KiB of one byte compresses far under 4 KiB
  CAF_CHECK_EQUAL(gzip.made.value(), 3u);
  // A compressed page over 4 KiB is in a file too, the same bytes.
  std::string noise(8192, '\0');
  std::uint32_t x = 2463534242u;
  for (auto& c : noise) {
    x ^= x << 13, x ^= x >> 17, x ^= x << 5;  // xorshift: bytes gzip cannot shrink
    c = static_cast<char>(x);
  }
  auto large = routes::read_response(req, routes::etag_text{"\"8-b\"", {1, 8}}, [&] { return http::response_text{noise}; }, {gzip, files});
  CAF_CHECK_EQUAL(encoding(large), "gzip");
  CAF_REQUIRE(large.body().file != nullptr);
  std::string in_file(large.body().file->size(), '\0');
  CAF_REQUIRE_EQUAL(::pread(large.body().file->fd(), in_file.data(), in_file.size(), 0), static_cast<ssize_t>(in_file.size()));
  CAF_CHECK(in_file == large.body().flatten());
  CAF_CHECK(in_file == compression::gzip(std::string_view{noise}));
  // A page of at most 1 KiB goes as it is, and its claim is given up: the next reader of it is
  // not deferred.
  auto held = gzip.held_bytes();
  for (int i = 0; i < 2; ++i) {
    auto small = routes::read_response(req, routes::etag_text{"\"9-a\"", {1, 9}}, [] { return http::response_text{std::string(1024, 's')}; }, {gzip, files});
    CAF_CHECK_EQUAL(encoding(small), "");
    CAF_CHECK_EQUAL(small.body().flatten(), std::string(1024, 's'));
  }
  CAF_CHECK_EQUAL(gzip.held_bytes(), held);
  CAF_CHECK_EQUAL(gzip.deferred.value(), 1u);
  // A client that does not take gzip gets the page rendered, from a file over 4 KiB.
  http::request plain{http::bhttp::verb::get, "/discovery/resources", 11};
  auto at_limit = routes::read_response(plain, routes::etag_text{"\"7-a\"", {1, 7}}, page, {gzip, files});
  CAF_CHECK_EQUAL(encoding(at_limit), "");
  CAF_CHECK(at_limit.body().file == nullptr);
  CAF_CHECK_EQUAL(at_limit.body().flatten(), text);
  auto past_limit = [&] {
    ++renders;
    return http::response_text{text + "y"};
  };
  renders = 0;
  for (int i = 0; i < 3; ++i) {
    auto past = routes::read_response(plain, routes::etag_text{"\"7-b\"", {1, 7}}, past_limit, {gzip, files});
    CAF_REQUIRE(past.body().file != nullptr);
    CAF_CHECK_EQUAL(past.body().file->size(), text.size() + 1);
    CAF_CHECK_EQUAL(past[http::bhttp::field::content_length], std::to_string(text.size() + 1));
    CAF_CHECK_EQUAL(past.body().flatten(), text + "y");
  }
  CAF_CHECK_EQUAL(renders, 1);  // written to its file once, then sent from it unrendered
  CAF_CHECK_EQUAL(files.made.value(), 1u);
  CAF_CHECK_EQUAL(files.hits.value(), 2u);
}

namespace {

// One set of four slots: every ETag competes for the same four.
using small_cache = routes::etag_cache<std::string, 1, 4>;

std::optional<std::pair<std::string, std::size_t>> value_of(std::size_t bytes) {
  return std::pair{std::string(bytes, 'v'), bytes};
}

}  // namespace

CAF_TEST(a read cache holds values up to its budget and past it replaces only cold ones) {
  small_cache cache{100};
  // Up to the budget: 60 + 40 bytes.
  auto a = cache.get("\"1-a\"", {}, [] { return value_of(60); });
  auto b = cache.get("\"1-b\"", {}, [] { return value_of(40); });
  CAF_REQUIRE(a && b);
  CAF_CHECK_EQUAL(cache.held_bytes(), 100u);
  // Past it, both are still being read: a new page is answered as rendered, an empty slot
  // notwithstanding, and nothing cached is replaced.
  CAF_CHECK(cache.get("\"1-c\"", {}, [] { return value_of(1); }) == nullptr);
  CAF_CHECK_EQUAL(cache.over_budget.value(), 1u);
  CAF_CHECK_EQUAL(cache.held_bytes(), 100u);
  // b is read while a is not, for more misses than the cache has slots (4): a is then cold,
  // and the next miss replaces it; the budget follows (100 - 60 + 10).
  CAF_CHECK(cache.get("\"1-c\"", {}, [] { return value_of(1); }) == nullptr);  // 3 misses since a was read
  CAF_CHECK(cache.get("\"1-c\"", {}, [] { return value_of(1); }) == nullptr);  // 4: not yet cold
  CAF_CHECK(cache.get("\"1-b\"", {}, [] { return value_of(40); }) == b);
  CAF_CHECK_EQUAL(cache.over_budget.value(), 3u);
  auto c = cache.get("\"2-c\"", {}, [] { return value_of(10); });
  CAF_REQUIRE(c);
  CAF_CHECK_EQUAL(cache.held_bytes(), 50u);
  CAF_CHECK(cache.get("\"1-b\"", {}, [] { return value_of(40); }) == b);
  // Under the budget an empty slot is taken, then the least recently read value goes.
  CAF_REQUIRE(cache.get("\"2-d\"", {}, [] { return value_of(5); }));
  CAF_REQUIRE(cache.get("\"2-e\"", {}, [] { return value_of(5); }));
  CAF_CHECK_EQUAL(cache.held_bytes(), 60u);
  CAF_CHECK(cache.get("\"1-b\"", {}, [] { return value_of(40); }) == b);
  CAF_REQUIRE(cache.get("\"2-f\"", {}, [] { return value_of(5); }));  // c was read least recently
  CAF_CHECK_EQUAL(cache.held_bytes(), 55u);
  CAF_CHECK(cache.get("\"1-b\"", {}, [] { return value_of(40); }) == b);
  auto made = cache.made.value();
  CAF_REQUIRE(cache.get("\"2-c\"", {}, [] { return value_of(10); }));
  CAF_CHECK_EQUAL(cache.made.value(), made + 1);  // c had gone
  // A value held by an answer outlives its slot.
  CAF_CHECK_EQUAL(a->value->size(), 60u);
}

CAF_TEST(pages read in turn that fit the cache are each made once) {
  // The reads of the load generator: 41 pages of one version, read in turn, three times.
  routes::etag_cache<std::string, 16> cache{8u << 20};  // as page_files: 16 sets of 8
  catalog::snapshot s;
  s.epoch = 0x1c4c1d938377b939;
  s.version = 0x21;
  for (int round = 0; round < 3; ++round)
    for (int page = 0; page <= 40; ++page) {
      auto tag = routes::etag_of(s, "/discovery/resources?limit=100&offset=" + std::to_string(page * 100));
      CAF_CHECK(cache.get(tag, tag.made_for(), [] { return value_of(150'000); }) != nullptr);
    }
  CAF_CHECK_EQUAL(cache.made.value(), 41u);
  CAF_CHECK_EQUAL(cache.hits.value(), 82u);
}

CAF_TEST(the pages of a new version take the slots and budget of the version they supersede) {
  // The reads of the load generator under its write load: 41 pages of 150 KB, read in turn,
  // while new versions come out. One version's pages are 6.2 MB of the 8 MiB: the last
  // version's, never to be read again, must make room at once, not once cold.
  routes::etag_cache<std::string, 16> cache{8u << 20};
  catalog::snapshot s;
  s.epoch = 0x1c4c1d938377b939;
  auto read_round = [&] {
    for (int page = 0; page <= 40; ++page) {
      auto tag = routes::etag_of(s, "/discovery/resources?limit=100&offset=" + std::to_string(page * 100));
      CAF_CHECK(cache.get(tag, tag.made_for(), [] { return value_of(150'000); }) != nullptr);
    }
  };
  for (s.version = 1; s.version <= 12; ++s.version) {
    read_round();
    read_round();
  }
  CAF_CHECK_EQUAL(cache.over_budget.value(), 0u);
  CAF_CHECK_EQUAL(cache.made.value(), 12u * 41u);
  CAF_CHECK_EQUAL(cache.hits.value(), 12u * 41u);
  CAF_CHECK_LESS_OR_EQUAL(cache.held_bytes(), 8u << 20);
  // A follower that takes a new primary's run starts its versions again: the old run's pages
  // are superseded by any version of the new one.
  s.epoch = 0x2;
  s.version = 1;
  read_round();
  CAF_CHECK_EQUAL(cache.over_budget.value(), 0u);
  CAF_CHECK_EQUAL(cache.made.value(), 13u * 41u);
}

CAF_TEST(a reader of an older version does not take the slot of a newer version) {
  small_cache cache{100};
  auto newer = cache.get("\"1-5-a\"", {1, 5}, [] { return value_of(60); });
  auto other = cache.get("\"1-5-b\"", {1, 5}, [] { return value_of(40); });
  CAF_REQUIRE(newer && other);
  // A reader still on version 4 (it loaded the snapshot just before 5 came out): over the
  // budget, with nothing superseded or cold, its page is answered as rendered.
  CAF_CHECK(cache.get("\"1-4-a\"", {1, 4}, [] { return value_of(10); }) == nullptr);
  CAF_CHECK_EQUAL(cache.over_budget.value(), 1u);
  CAF_CHECK(cache.get("\"1-5-a\"", {1, 5}, [] { return value_of(60); }) == newer);
  // Version 6's page replaces a version 5 value, over the budget and though it was just read.
  auto next = cache.get("\"1-6-a\"", {1, 6}, [] { return value_of(10); });
  CAF_REQUIRE(next);
  CAF_CHECK_EQUAL(cache.over_budget.value(), 1u);
  CAF_CHECK_LESS(cache.held_bytes(), 100u);
}

CAF_TEST(a page that a newer version did not change takes the bytes made for the older one) {
  routes::gzip_cache gzip{routes::gzip_cache_budget};
  routes::page_files files{routes::page_files_budget};
  http::request gzipped{http::bhttp::verb::get, "/discovery/resources", 11};
  gzipped.set(http::bhttp::field::accept_encoding, "gzip");
  http::request plain{http::bhttp::verb::get, "/discovery/resources", 11};
  auto version = [](std::uint64_t v, catalog::listing_items items) {
    auto snap = std::make_shared<catalog::snapshot>();
    snap->epoch = 1;
    snap->version = v;
    snap->items = std::move(items);
    return catalog::snapshot_ptr{std::move(snap)};
  };
  std::vector<catalog::item_ptr> items;
  for (std::uint64_t seq = 1; seq <= 250; ++seq) items.push_back(item_of("p", "payP", "http", seq));
  // As the handler reads a list page.
  auto read = [&](const http::request& req, const catalog::snapshot_ptr& snap, std::size_t offset) {
    auto query = "limit=100&offset=" + std::to_string(offset);
    auto list = *routes::parse_list_request(query);
    auto etag = routes::etag_of(*snap, "/discovery/resources?" + query);
    auto res = routes::read_response(req, etag, [&] { return routes::render_list(snap, list); }, {gzip, files},
                                   [&] { return std::optional{routes::list_content(routes::select_list(*snap, list), list)}; });
    CAF_CHECK_EQUAL(res[http::bhttp::field::etag], etag.view());
    return res.body().flatten();
  };
  auto v1 = version(1, catalog::listing_items{items});
  std::array<std::string, 3> first, first_plain;
  for (std::size_t page = 0; page < 3; ++page) {
    first[page] = read(gzipped, v1, page * 100);
    first_plain[page] = read(plain, v1, page * 100);
  }
  CAF_CHECK_EQUAL(gzip.made.value(), 3u);
  CAF_CHECK_EQUAL(files.made.value(), 3u);
  // Version 2 changes the item at position 150 (a heartbeat): the second page is new, the first
  // and third are the same bytes and take them, neither compressed nor written again.
  auto beat = items[150]->record();
  beat.last_seen_ms = 2'000;
  items[150] = catalog::make_item(beat, 0);
  auto v2 = version(2, catalog::listing_items{items});
  for (std::size_t page = 0; page < 3; ++page) {
    auto again = read(gzipped, v2, page * 100);
    auto again_plain = read(plain, v2, page * 100);
    CAF_CHECK_EQUAL(again == first[page], page != 1);
    CAF_CHECK_EQUAL(again_plain == first_plain[page], page != 1);
    CAF_CHECK(again == compression::gzip(std::string_view{again_plain}));
  }
  CAF_CHECK_EQUAL(gzip.made.value(), 4u);
  CAF_CHECK_EQUAL(gzip.reused.value(), 2u);
  CAF_CHECK_EQUAL(files.made.value(), 4u);
  CAF_CHECK_EQUAL(files.reused.value(), 2u);
  // Read again at version 2: cache hits, nothing reused or made.
  CAF_CHECK(read(gzipped, v2, 0) == first[0]);
  CAF_CHECK_EQUAL(gzip.hits.value(), 1u);
  CAF_CHECK_EQUAL(gzip.reused.value(), 2u);
  // Version 3 adds an item: every page's total changes, so no page is the same.
  items.push_back(item_of("p", "payP", "http", 251));
  auto v3 = version(3, catalog::listing_items{items});
  for (std::size_t page = 0; page < 3; ++page) {
    auto body = boost::json::parse(read(plain, v3, page * 100)).as_object();
    CAF_CHECK_EQUAL(body["pagination"].as_object()["total"].as_int64(), 251);
  }
  CAF_CHECK_EQUAL(files.made.value(), 7u);
  CAF_CHECK_EQUAL(files.reused.value(), 2u);
}

CAF_TEST(a page is remembered by place and content and only while an entry holds its value) {
  small_cache cache{100};
  routes::page_content content{100, 0, 250, false, {1, 2, 3}};
  auto a = cache.get("\"1-1-a\"", {1, 1}, [] { return value_of(60); });
  CAF_REQUIRE(a);
  cache.remember(7, content, a);
  CAF_CHECK(cache.made_before(7, content).value == a->value);
  CAF_CHECK_EQUAL(cache.made_before(7, content).bytes, 60u);
  CAF_CHECK(!cache.made_before(7 + small_cache::slot_count, content));  // another place, the same slot
  for (auto other : {routes::page_content{100, 0, 250, false, {1, 2, 4}}, routes::page_content{100, 0, 251, false, {1, 2, 3}},
                     routes::page_content{100, 100, 250, false, {1, 2, 3}}, routes::page_content{10, 0, 250, false, {1, 2, 3}},
                     routes::page_content{100, 0, 250, true, {1, 2, 3}}})
    CAF_CHECK(!cache.made_before(7, other));
  // Version 2's page takes the value, in the slot of version 1's: the value lives on in it,
  // and version 3 can take it too.
  auto claim = cache.find_or_claim("\"1-2-a\"", {1, 2});
  CAF_REQUIRE(claim.claim);
  auto b = cache.fill_reused(std::move(claim.claim), cache.made_before(7, content));
  CAF_CHECK(b->value == a->value);
  CAF_CHECK_EQUAL(b->slot, a->slot);
  CAF_CHECK_EQUAL(cache.held_bytes(), 60u);
  a.reset();
  b.reset();
  CAF_CHECK(cache.made_before(7, content));
  // Once version 3 has taken that slot too and no answer holds the value, it is gone.
  CAF_REQUIRE(cache.get("\"1-3-b\"", {1, 3}, [] { return value_of(60); }));
  CAF_CHECK(!cache.made_before(7, content));
}

CAF_TEST(a value that cannot be made leaves the slot for the next reader) {
  small_cache cache{100};
  auto failed = cache.get("\"1-a\"", {}, [] { return std::optional<std::pair<std::string, std::size_t>>{}; });
  CAF_CHECK(failed == nullptr);
  bool thrown = false;
  try {
    cache.get("\"1-a\"", {}, []() -> std::optional<std::pair<std::string, std::size_t>> { throw std::runtime_error("zlib"); });
  } catch (const std::runtime_error&) {
    thrown = true;
  }
  CAF_CHECK(thrown);
  auto made = cache.get("\"1-a\"", {}, [] { return value_of(5); });
  CAF_REQUIRE(made);
  CAF_CHECK_EQUAL(*made->value, "vvvvv");
  CAF_CHECK_EQUAL(cache.deferred.value(), 0u);
}

CAF_TEST(a page file holds the text pieces and suffix of the page byte for byte) {
  std::string items(200'000, 'i');
  for (std::size_t i = 0; i < items.size(); ++i) items[i] = static_cast<char>('a' + i % 26);
  http::response_text page{R"({"items":[)"};
  // More pieces than one writev takes (IOV_MAX), of uneven sizes.
  for (std::size_t at = 0; at < items.size();) {
    auto n = std::min<std::size_t>(1 + at % 300, items.size() - at);
    page.pieces.emplace_back(items.data() + at, n);
    at += n;
  }
  CAF_REQUIRE_GREATER(page.pieces.size(), 1024u);
  page.suffix = "]}";
  auto file = http::page_file::write(page);
  CAF_REQUIRE(file);
  CAF_REQUIRE_EQUAL(file->size(), page.payload_size());
  CAF_CHECK(file->bytes() == page.flatten());
  // A body that is the file reads as the page.
  routes::page_files files{routes::page_files_budget};
  auto size = file->size();
  auto held = files.get("\"1-a\"", {}, [&] { return std::optional{std::pair{std::move(*file), size}}; });
  CAF_REQUIRE(held);
  auto body = routes::file_body(held);
  CAF_CHECK_EQUAL(body.payload_size(), page.payload_size());
  CAF_CHECK(body.flatten() == page.flatten());
  // A body may carry text before its file (an MCP answer's envelope head, the kept result after it).
  body.assign(R"({"jsonrpc":"2.0","id":7,"result":)");
  CAF_CHECK_EQUAL(body.payload_size(), body.size() + page.payload_size());
  CAF_CHECK(body.flatten() == R"({"jsonrpc":"2.0","id":7,"result":)" + page.flatten());
}

CAF_TEST(a kept MCP result held in its file reads as the same result held as text) {
  std::string json = R"({"content":[{"type":"text","text":"a page"}],"structuredContent":{"items":[)";
  json.append(std::string(6000, 'x')).append(R"(]},"isError":false})");
  http::response_text text;
  text.pieces.push_back(boost::asio::buffer(json));
  text.suffix = mcp::result_tail;
  auto file = http::page_file::write(text);
  CAF_REQUIRE(file);
  auto in_file = std::make_shared<const mcp::kept_result>(
      mcp::kept_result{"", std::nullopt, std::make_shared<const http::page_file>(std::move(*file))});
  auto as_text = std::make_shared<const mcp::kept_result>(mcp::kept_result{json, std::nullopt, nullptr});
  CAF_CHECK(in_file->text() == json);
  CAF_CHECK(as_text->text() == json);
  // The whole answer, as an in-process caller takes it: the envelope's head, the result, its brace.
  auto head = mcp::result_head("7");
  CAF_CHECK_EQUAL(mcp::server::outcome(head, false, in_file).text(), head + json + "}");
  CAF_CHECK_EQUAL(mcp::server::outcome(head, false, in_file).text(), mcp::server::outcome(head, false, as_text).text());
}

CAF_TEST(an ETag names the run and version in hex and the target by a 16 digit hash) {
  catalog::snapshot s;
  auto expect = [&](std::uint64_t epoch, std::uint64_t version, std::string_view target) {
    std::uint64_t h = 14695981039346656037ull;
    for (unsigned char c : target) h = (h ^ c) * 1099511628211ull;
    char buf[64];
    std::snprintf(buf, sizeof buf, "\"%llx-%llx-%016llx\"", static_cast<unsigned long long>(epoch),
                  static_cast<unsigned long long>(version), static_cast<unsigned long long>(h));
    return std::string{buf};
  };
  // The smallest and largest numbers, and a hash with leading zero digits.
  for (auto [epoch, version] : {std::pair<std::uint64_t, std::uint64_t>{0, 0}, {0x1f, 0x100},
                                {~0ull, ~0ull}, {0x8000000000000000ull, 1}}) {
    s.epoch = epoch;
    s.version = version;
    // The last target's hash is 0xfd3b886eadbff4: two leading zero digits.
    for (std::string_view target : {"", "/discovery/resources?limit=10", "/discovery/resources?offset=19100"}) {
      auto tag = routes::etag_of(s, target);
      CAF_CHECK_EQUAL(std::string{tag.view()}, expect(epoch, version, target));
    }
  }
  s.epoch = s.version = 0;
  CAF_CHECK_EQUAL(std::string{routes::etag_of(s, "/discovery/resources?offset=19100").view()}, "\"0-0-00fd3b886eadbff4\"");
  s.epoch = s.version = ~0ull;
  CAF_CHECK_EQUAL(routes::etag_of(s, "/x").view().size(), 52u);
}
