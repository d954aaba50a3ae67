#include "z402/telemetry/metrics.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>

namespace z402::telemetry {

std::size_t cell_of_this_thread() {
  static std::atomic<std::size_t> next{0};
  thread_local std::size_t mine = next.fetch_add(1, std::memory_order_relaxed) % metric_cells;
  return mine;
}

histogram::histogram(std::span<const std::chrono::nanoseconds> bounds) : size_(bounds.size()) {
  if (bounds.size() > max_buckets || !std::is_sorted(bounds.begin(), bounds.end()))
    throw std::invalid_argument("histogram: at most 15 ascending bounds");
  std::copy(bounds.begin(), bounds.end(), bounds_.begin());
}

void histogram::observe(std::chrono::nanoseconds took) {
  auto& c = cells_[cell_of_this_thread()];
  auto at = static_cast<std::size_t>(std::lower_bound(bounds_.begin(), bounds_.begin() + size_, took) - bounds_.begin());
  c.buckets[at].fetch_add(1, std::memory_order_relaxed);
  c.sum_ns.fetch_add(static_cast<std::uint64_t>(std::max<std::int64_t>(0, took.count())), std::memory_order_relaxed);
}

histogram::reading histogram::read() const {
  reading r;
  r.cumulative.assign(size_ + 1, 0);
  std::uint64_t sum_ns = 0;
  for (auto& c : cells_) {
    for (std::size_t i = 0; i <= size_; ++i) r.cumulative[i] += c.buckets[i].load(std::memory_order_relaxed);
    sum_ns += c.sum_ns.load(std::memory_order_relaxed);
  }
  for (std::size_t i = 1; i <= size_; ++i) r.cumulative[i] += r.cumulative[i - 1];
  r.count = r.cumulative.back();
  r.sum_seconds = static_cast<double>(sum_ns) / 1e9;
  return r;
}

namespace {

void append_label_value(std::string& out, std::string_view v) {
  for (char c : v) {
    if (c == '\\') out.append("\\\\");
    else if (c == '"') out.append("\\\"");
    else if (c == '\n') out.append("\\n");
    else out.push_back(c);
  }
}

void append_number(std::string& out, double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, ec == std::errc{} ? end : buf);
}

}  // namespace

void prometheus_text::family(std::string_view name, std::string_view type, std::string_view help) {
  out_.append("# HELP ").append(name).append(" ").append(help).append("\n");
  out_.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

void prometheus_text::head(std::string_view name, labels l, std::string_view extra_label, std::string_view extra_value) {
  out_.append(name);
  if (l.size() == 0 && extra_label.empty()) return out_.push_back(' ');
  out_.push_back('{');
  bool first = true;
  auto add = [&](std::string_view k, std::string_view v) {
    if (!first) out_.push_back(',');
    first = false;
    out_.append(k).append("=\"");
    append_label_value(out_, v);
    out_.push_back('"');
  };
  for (auto& [k, v] : l) add(k, v);
  if (!extra_label.empty()) add(extra_label, extra_value);
  out_.append("} ");
}

void prometheus_text::sample(std::string_view name, labels l, double value) {
  head(name, l);
  append_number(out_, value);
  out_.push_back('\n');
}

void prometheus_text::sample(std::string_view name, labels l, std::uint64_t value) {
  head(name, l);
  out_.append(std::to_string(value)).push_back('\n');
}

void prometheus_text::sample(std::string_view name, labels l, std::int64_t value) {
  head(name, l);
  out_.append(std::to_string(value)).push_back('\n');
}

void prometheus_text::histogram_samples(std::string_view name, labels l, const histogram& h) {
  auto r = h.read();
  auto bucket = std::string{name} + "_bucket";
  auto bounds = h.bounds();
  for (std::size_t i = 0; i <= bounds.size(); ++i) {
    std::string le = "+Inf";
    if (i < bounds.size()) {
      le.clear();
      append_number(le, std::chrono::duration<double>(bounds[i]).count());
    }
    head(bucket, l, "le", le);
    out_.append(std::to_string(r.cumulative[i])).push_back('\n');
  }
  head(std::string{name} + "_sum", l);
  append_number(out_, r.sum_seconds);
  out_.push_back('\n');
  head(std::string{name} + "_count", l);
  out_.append(std::to_string(r.count)).push_back('\n');
}

}  // namespace z402::telemetry
