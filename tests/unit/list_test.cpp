#define CAF_SUITE list
#include "test.hpp"

#include "fixtures.hpp"
#include "z402/http/gzip_cache.hpp"
#include "z402/http/list_query.hpp"
#include "z402/http/read_response.hpp"
#include "z402/wire/iso_time.hpp"

using namespace z402;

namespace {

catalog::item_ptr item_of(std::string provider, std::string pay_to, std::string type, std::uint64_t seq,
                          bool with_bazaar = true) {
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
  return catalog::make_item(std::move(r), 0);
}

catalog::snapshot sample() {
  catalog::snapshot s;
  s.items = {item_of("a", "payA", "http", 1), item_of("b", "payB", "mcp", 2), item_of("a", "payA", "http", 3, false),
             item_of("c", "payC", "http", 4)};
  return s;
}

boost::json::object render(const catalog::snapshot& s, std::string_view query) {
  auto req = http::parse_list_request(query);
  CAF_REQUIRE(req.has_value());
  catalog::snapshot_ptr borrowed{std::shared_ptr<void>{}, &s};  // not owned: `s` outlives the call
  return boost::json::parse(http::render_list(borrowed, *req).flatten()).as_object();
}

}  // namespace

CAF_TEST(limit defaults to 100 and is clamped to 1 to 1000) {
  auto limit_of = [&](std::string_view q) { return http::parse_list_request(q)->limit; };
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
    auto req = http::parse_list_request(q);
    CAF_REQUIRE(!req);
    CAF_CHECK(req.error().code == errc::invalid_filter);
    CAF_CHECK_EQUAL(req.error().field, field);
  }
  CAF_CHECK(http::parse_list_request("unknown=1&x"));
}

CAF_TEST(form decoding turns plus into space and percent escapes into bytes) {
  auto params = http::parse_query("network=zcash%3Aregtest&q=a+b%26c");
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
  CAF_CHECK_EQUAL(render(s, "type=mcp").at("pagination").at("total").as_int64(), 1);
  CAF_CHECK_EQUAL(render(s, "payTo=payA").at("pagination").at("total").as_int64(), 2);
  CAF_CHECK_EQUAL(render(s, "payTo=payA&extensions=bazaar").at("pagination").at("total").as_int64(), 1);
  CAF_CHECK_EQUAL(render(s, "network=zcash%3Aregtest&scheme=prepaid-voucher&asset=ZEC").at("pagination").at("total").as_int64(), 4);
  CAF_CHECK_EQUAL(render(s, "network=eip155%3A8453").at("pagination").at("total").as_int64(), 0);
  CAF_CHECK_EQUAL(render(s, "extensions=z402").at("pagination").at("total").as_int64(), 4);
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
  CAF_CHECK_EQUAL(render(s, "maxAmount=1000&limit=2").at("pagination").at("total").as_int64(), 3);
  for (auto bad : {"maxAmount=18446744073709551616", "maxAmount=-1", "maxAmount=", "maxAmount=1e3", "maxAmount=+5",
                   "maxAmount=%201", "maxAmount=12abc"}) {
    auto req = http::parse_list_request(bad);
    CAF_REQUIRE(!req);
    CAF_CHECK(req.error().code == errc::invalid_filter);
    CAF_CHECK_EQUAL(req.error().field, "maxAmount");
  }
}

CAF_TEST(a page is compressed once per ETag and by one reader at a time) {
  http::gzip_cache cache;
  http::response_text page{std::string(4096, 'x')};
  // The first reader of a version claims the page; one that comes meanwhile does not wait and
  // does not compress it again: it answers the page uncompressed.
  auto first = cache.find_or_claim("\"7-a\"");
  CAF_REQUIRE(first.claim && !first.hit);
  auto meanwhile = cache.find_or_claim("\"7-a\"");
  CAF_CHECK(!meanwhile.claim && !meanwhile.hit);
  CAF_CHECK(cache.get("\"7-a\"", page) == nullptr);
  auto filled = cache.fill(std::move(first.claim), page);
  CAF_REQUIRE(filled && !filled->pending);
  CAF_CHECK_EQUAL(filled->body, http::gzip(std::string_view{page}));
  // Later readers of the same version are served the same bytes, compressed once.
  auto again = cache.get("\"7-a\"", page);
  CAF_CHECK(again == filled);
  CAF_CHECK_EQUAL(cache.compressions.value(), 1u);
  CAF_CHECK_EQUAL(cache.hits.value(), 1u);
  CAF_CHECK_EQUAL(cache.deferred.value(), 2u);
  // A new version is a new page.
  auto next = cache.get("\"8-a\"", page);
  CAF_REQUIRE(next);
  CAF_CHECK(next != filled);
  CAF_CHECK_EQUAL(cache.compressions.value(), 2u);
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
      auto tag = http::etag_of(s, target);
      CAF_CHECK_EQUAL(std::string{tag.view()}, expect(epoch, version, target));
    }
  }
  s.epoch = s.version = 0;
  CAF_CHECK_EQUAL(std::string{http::etag_of(s, "/discovery/resources?offset=19100").view()}, "\"0-0-00fd3b886eadbff4\"");
  s.epoch = s.version = ~0ull;
  CAF_CHECK_EQUAL(http::etag_of(s, "/x").view().size(), 52u);
}
