#define CAF_SUITE telemetry
#include "test.hpp"

#include "rules/rule_family.hpp"
#include "z402/telemetry/log.hpp"
#include "z402/telemetry/metrics.hpp"
#include "z402/telemetry/stream_sink.hpp"

#include <boost/json.hpp>

#include <thread>

using namespace z402;
using namespace std::chrono_literals;

namespace {

// A provider key as crypto::random_key makes them: a prefix and 43 base64url characters.
const std::string key = "z402pk_Ab3-_xYz0123456789abcdefghijklmnopqrstu";

telemetry::log_record record(std::string_view message, std::span<const telemetry::log_field> fields) {
  return {telemetry::level::warning, "catalog.settle", message, fields, 1798203296789};
}

}  // namespace

CAF_TEST(keys are redacted wherever they stand in a line) {
  std::string text = "path=/discovery/" + key + "?x and z402sk_secretpart, z402pk_ and " + key;
  telemetry::redact_keys(text);
  CAF_CHECK_EQUAL(text, "path=/discovery/z402pk_[redacted]?x and z402sk_[redacted], z402pk_ and z402pk_[redacted]");
}

CAF_TEST(text lines are one line and quoted where needed and name warnings and hold no key) {
  telemetry::log_field fields[] = {{"count", 3}, {"latest", "no provider\nforged line"}, {"key", key}};
  auto line = telemetry::format_text(record("settle events not catalogued", fields), "z402-bazaar");
  CAF_CHECK_EQUAL(line,
                  "z402-bazaar: warning: settle events not catalogued count=3 latest=\"no provider?forged line\" "
                  "key=z402pk_[redacted]\n");
}

CAF_TEST(json lines carry time and level and program and component and message and typed fields) {
  telemetry::log_field fields[] = {{"count", 3}, {"latest", "a \"quoted\"\nreason"}, {"key", key}};
  auto line = telemetry::format_json(record("not catalogued", fields), "z402-bazaar");
  CAF_REQUIRE(line.ends_with("\n"));
  CAF_CHECK_EQUAL(std::count(line.begin(), line.end(), '\n'), 1);
  auto v = boost::json::parse(line).as_object();
  CAF_CHECK_EQUAL(v["time"].as_string(), "2026-12-25T12:54:56.789Z");
  CAF_CHECK_EQUAL(v["level"].as_string(), "warning");
  CAF_CHECK_EQUAL(v["program"].as_string(), "z402-bazaar");
  CAF_CHECK_EQUAL(v["component"].as_string(), "catalog.settle");
  CAF_CHECK_EQUAL(v["count"].as_int64(), 3);
  CAF_CHECK_EQUAL(v["latest"].as_string(), "a \"quoted\"\nreason");
  CAF_CHECK_EQUAL(v["key"].as_string(), "z402pk_[redacted]");
}

CAF_TEST(a logger without a sink discards and a component logger names its component) {
  struct capture final : telemetry::log_sink {
    std::vector<std::string> lines;
    void write(const telemetry::log_record& r) override { lines.push_back(std::string{r.component} + ": " + std::string{r.message}); }
  };
  telemetry::logger{}.error("nobody hears this");
  auto sink = std::make_shared<capture>();
  telemetry::logger log{sink, "server"};
  log.info("up");
  log.with_component("http.tls").warning("rotated");
  CAF_CHECK_EQUAL(sink->lines, (std::vector<std::string>{"server: up", "http.tls: rotated"}));
}

CAF_TEST(counters and gauges sum the cells of every thread) {
  telemetry::counter c;
  telemetry::gauge g;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 1000; ++i) {
        c.add();
        g.add(2);
        g.add(-1);
      }
    });
  for (auto& t : threads) t.join();
  CAF_CHECK_EQUAL(c.value(), 4000u);
  CAF_CHECK_EQUAL(g.value(), 4000);
}

CAF_TEST(histograms are cumulative with le as Prometheus writes it and the sum in seconds) {
  const std::chrono::nanoseconds bounds[] = {1ms, 10ms};
  telemetry::histogram h{bounds};
  h.observe(500us);
  h.observe(1ms);  // on the bound: counted in it (le)
  h.observe(5ms);
  h.observe(2s);
  telemetry::prometheus_text out;
  out.family("x_seconds", "histogram", "test");
  out.histogram_samples("x_seconds", {{"route", "a\"b\\c\nd"}}, h);
  CAF_CHECK_EQUAL(out.text(),
                  "# HELP x_seconds test\n# TYPE x_seconds histogram\n"
                  "x_seconds_bucket{route=\"a\\\"b\\\\c\\nd\",le=\"0.001\"} 2\n"
                  "x_seconds_bucket{route=\"a\\\"b\\\\c\\nd\",le=\"0.01\"} 3\n"
                  "x_seconds_bucket{route=\"a\\\"b\\\\c\\nd\",le=\"+Inf\"} 4\n"
                  "x_seconds_sum{route=\"a\\\"b\\\\c\\nd\"} 2.0065\n"
                  "x_seconds_count{route=\"a\\\"b\\\\c\\nd\"} 4\n");
  const std::chrono::nanoseconds unsorted[] = {10ms, 1ms};
  bool refused = false;
  try {
    telemetry::histogram bad{unsorted};
  } catch (const std::invalid_argument&) {
    refused = true;
  }
  CAF_CHECK(refused);
}

CAF_TEST(a refusal counts under the family of the field it names) {
  auto family = [](std::string_view field, bool item) { return rules::rule_families[rules::rule_family_of(field, item)]; };
  CAF_CHECK_EQUAL(family("accepts[0].payTo", true), "accepts");
  CAF_CHECK_EQUAL(family("extensions.bazaar.info.input", true), "extensions");
  CAF_CHECK_EQUAL(family("resource", true), "resource");
  CAF_CHECK_EQUAL(family("favouriteColour", true), "other");
  CAF_CHECK_EQUAL(family("items", false), "body");
  CAF_CHECK_EQUAL(family("", false), "body");
}
