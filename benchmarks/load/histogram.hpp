#pragma once
// A latency histogram of constant memory: log-linear buckets as HdrHistogram lays them out, three
// significant digits (a recorded value and the value read back differ by less than 0.1 %), from
// 1 µs to about 19 hours. Counts add up, so lanes, endpoints and runs merge exactly, and a
// percentile is read off the counts, never off kept samples. 216 KiB each.
#include <boost/json/value.hpp>

#include <array>
#include <bit>
#include <cstdint>
#include <optional>
#include <vector>

namespace z402::bench {

class histogram {
 public:
  /// 2^11 sub-buckets: the smallest power of two above 2 * 10^3, for three significant digits.
  static constexpr unsigned half_magnitude = 10;
  static constexpr std::uint64_t sub_buckets = std::uint64_t{1} << (half_magnitude + 1);
  static constexpr std::uint64_t half_sub_buckets = sub_buckets / 2;
  static constexpr unsigned buckets = 26;  // the largest value tracked: 2^36 - 1 µs (19 h)
  static constexpr std::uint64_t max_value = (std::uint64_t{1} << (buckets + half_magnitude)) - 1;

  histogram() : counts_((buckets + 1) * half_sub_buckets, 0) {}

  /// One value (microseconds); above max_value it counts as max_value.
  void record(std::uint64_t micros, std::uint64_t times = 1) {
    counts_[index_of(std::min(micros, max_value))] += times;
    total_ += times;
    max_ = std::max(max_, std::min(micros, max_value));
  }

  void merge(const histogram& other) {
    for (std::size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
    total_ += other.total_;
    max_ = std::max(max_, other.max_);
  }

  std::uint64_t count() const { return total_; }
  std::uint64_t max() const { return max_; }

  /// The value below or at which `q` (0-1) of the recorded values are: the highest value its
  /// bucket holds, as HdrHistogram reports it. 0 when nothing was recorded.
  std::uint64_t percentile(double q) const;

  /// {"unit":"us","significantDigits":3,"counts":[[value,count],...]}: the non-empty buckets by
  /// their lowest value, which from_json records again into the same buckets.
  boost::json::value to_json() const;
  static std::optional<histogram> from_json(const boost::json::value& v);

  /// The bucket index of a value, and the range of values it holds.
  static std::size_t index_of(std::uint64_t v) {
    auto bucket = static_cast<unsigned>(std::bit_width(v | (sub_buckets - 1))) - (half_magnitude + 1);
    auto sub = v >> bucket;
    return ((bucket + 1) << half_magnitude) + (sub - half_sub_buckets);
  }
  static std::uint64_t lowest_of(std::size_t index) {
    auto bucket = index >> half_magnitude;
    auto sub = (index & (half_sub_buckets - 1)) + half_sub_buckets;
    if (bucket == 0) return sub - half_sub_buckets;  // the first half-bucket: values below 1024, exact
    return sub << (bucket - 1);
  }
  static std::uint64_t highest_of(std::size_t index) {
    auto bucket = index >> half_magnitude;
    return lowest_of(index) + (bucket == 0 ? 0 : (std::uint64_t{1} << (bucket - 1)) - 1);
  }

 private:
  std::vector<std::uint64_t> counts_;
  std::uint64_t total_ = 0;
  std::uint64_t max_ = 0;
};

}  // namespace z402::bench
