#include "histogram.hpp"

#include <boost/json.hpp>

#include <cmath>

namespace z402::bench {

std::uint64_t histogram::percentile(double q) const {
  if (total_ == 0) return 0;
  if (q >= 1.0) return max_;
  auto wanted = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(total_))));
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= wanted) return std::min(highest_of(i), max_);
  }
  return max_;
}

boost::json::value histogram::to_json() const {
  boost::json::array counts;
  for (std::size_t i = 0; i < counts_.size(); ++i)
    if (counts_[i]) counts.push_back(boost::json::array{lowest_of(i), counts_[i]});
  return boost::json::object{{"unit", "us"}, {"significantDigits", 3}, {"max", max_}, {"counts", std::move(counts)}};
}

std::optional<histogram> histogram::from_json(const boost::json::value& v) {
  auto* o = v.if_object();
  if (!o || !o->contains("counts") || !o->at("counts").is_array()) return std::nullopt;
  histogram h;
  for (auto& pair : o->at("counts").as_array()) {
    auto* p = pair.if_array();
    if (!p || p->size() != 2 || !(*p)[0].is_number() || !(*p)[1].is_number()) return std::nullopt;
    boost::system::error_code ec_value, ec_count;
    auto value = (*p)[0].to_number<std::uint64_t>(ec_value);
    auto count = (*p)[1].to_number<std::uint64_t>(ec_count);
    if (ec_value || ec_count) return std::nullopt;
    h.counts_[index_of(std::min(value, max_value))] += count;
    h.total_ += count;
  }
  if (auto* m = o->if_contains("max"); m && m->is_number()) {
    boost::system::error_code ec;
    h.max_ = std::min(m->to_number<std::uint64_t>(ec), max_value);
    if (ec) return std::nullopt;
  }
  return h;
}

}  // namespace z402::bench
