#define CAF_SUITE load
#include "test.hpp"

#include "histogram.hpp"
#include "thresholds.hpp"

#include <boost/json.hpp>

#include <random>

using namespace z402;
using bench::histogram;

CAF_TEST(a histogram reads values back within three significant digits) {
  histogram h;
  std::mt19937_64 random{7};
  std::vector<std::uint64_t> values;
  for (int i = 0; i < 100'000; ++i) {
    auto v = random() % (std::uint64_t{1} << (i % 34));
    values.push_back(v);
    h.record(v);
  }
  std::sort(values.begin(), values.end());
  CAF_CHECK_EQUAL(h.count(), values.size());
  CAF_CHECK_EQUAL(h.max(), values.back());
  for (double q : {0.5, 0.9, 0.99, 0.999}) {
    auto exact = values[static_cast<std::size_t>(std::ceil(q * values.size())) - 1];
    auto read = h.percentile(q);
    // The bucket's highest value: never below the exact one, above it by less than 0.1 %.
    CAF_CHECK_GREATER_OR_EQUAL(read, exact);
    CAF_CHECK_LESS_OR_EQUAL(static_cast<double>(read - exact), static_cast<double>(exact) / 1000.0 + 1.0);
  }
  CAF_CHECK_EQUAL(h.percentile(1.0), values.back());
}

CAF_TEST(histogram buckets cover every value once and keep constant memory) {
  // Each index's range starts where the last one's ended.
  for (std::size_t i = 1; i < (histogram::buckets + 1) * histogram::half_sub_buckets; ++i)
    CAF_REQUIRE_EQUAL(histogram::lowest_of(i), histogram::highest_of(i - 1) + 1);
  for (std::uint64_t v : std::initializer_list<std::uint64_t>{0, 1, 1023, 1024, 2047, 2048, 123456789, histogram::max_value}) {
    auto i = histogram::index_of(v);
    CAF_CHECK(histogram::lowest_of(i) <= v && v <= histogram::highest_of(i));
  }
  histogram h;
  h.record(histogram::max_value + 12345);  // past the range: counted at its top
  CAF_CHECK_EQUAL(h.max(), histogram::max_value);
  CAF_CHECK_EQUAL(h.count(), 1u);
}

CAF_TEST(histograms merge exactly and survive their JSON) {
  histogram a, b, both;
  for (std::uint64_t v = 0; v < 5000; v += 3) a.record(v * 17), both.record(v * 17);
  for (std::uint64_t v = 0; v < 700; ++v) b.record(v * v), both.record(v * v);
  a.merge(b);
  auto again = histogram::from_json(boost::json::parse(boost::json::serialize(a.to_json())));
  CAF_REQUIRE(again);
  for (double q : {0.1, 0.5, 0.9, 0.99, 0.999, 1.0}) {
    CAF_CHECK_EQUAL(a.percentile(q), both.percentile(q));
    CAF_CHECK_EQUAL(again->percentile(q), both.percentile(q));
  }
  CAF_CHECK_EQUAL(again->count(), both.count());
  CAF_CHECK(!histogram::from_json(boost::json::parse(R"({"counts":[[1,-2]]})")));
  CAF_CHECK(!histogram::from_json(boost::json::parse(R"({"counts":[[1]]})")));
  CAF_CHECK(!histogram::from_json(boost::json::parse(R"([])")));
}

CAF_TEST(thresholds read as k6 writes them and judge the figures) {
  bench::endpoint_figures f;
  f.offered_per_s = 1000;
  f.achieved_per_s = 995;
  f.requests = 20000;
  f.errors = 10;
  f.p99 = 42'000;
  f.p999 = 80'000;
  f.service_p99 = 1'500;
  std::string measured;
  auto holds = [&](std::string_view text) {
    auto t = bench::parse_threshold(text);
    CAF_REQUIRE(t);
    return t->holds(f, measured);
  };
  CAF_CHECK(holds("list.p99<50ms"));
  CAF_CHECK_EQUAL(measured, "42.00ms");
  CAF_CHECK(!holds("list.p99<42ms"));
  CAF_CHECK(holds("list.p99<=42ms"));
  CAF_CHECK(holds("*.p99.9<0.1s"));
  CAF_CHECK(holds("search.service.p99<2000us"));
  CAF_CHECK(holds("*.errors<0.1%"));   // 0.05 %
  CAF_CHECK(!holds("*.errors<0.05%"));
  CAF_CHECK(holds("mcp.errors<=10"));
  CAF_CHECK(holds("achieved>=0.99*offered"));
  CAF_CHECK(!holds("achieved>=0.999*offered"));
  CAF_CHECK(holds("list.achieved>900"));
  // Each malformed one is refused, naming the threshold.
  for (auto bad : {"list.p99", "list.p99<50", "list.p99<fast", "nothing.p99<5ms", "list.p42<5ms", "*.errors<5ms",
                   "achieved>=x*offered", "<5ms", "list.p99<-1ms"}) {
    auto t = bench::parse_threshold(bad);
    CAF_CHECK(!t);
    if (!t) CAF_CHECK_EQUAL(t.error().field, "threshold");
  }
}
