#include "z402/rules/price_label.hpp"

#include <algorithm>
#include <array>

namespace z402::rules {
namespace {

/// An asset whose atomic unit the rail defines: ZEC's is the zatoshi, 10^-8 ZEC.
struct known_asset {
  std::string_view asset;
  std::string_view atomic_name;
  unsigned decimals;
};
constexpr std::array known_assets{known_asset{"ZEC", "zat", 8}};

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::string whole_coins(std::string_view atomic, unsigned decimals) {
  atomic.remove_prefix(std::min(atomic.find_first_not_of('0'), atomic.size()));
  if (atomic.empty()) return "0";
  std::string digits(atomic.size() < decimals + 1 ? decimals + 1 - atomic.size() : 0, '0');
  digits.append(atomic);
  auto point = digits.size() - decimals;
  std::string out = digits.substr(0, point);
  auto fraction = std::string_view{digits}.substr(point);
  fraction = fraction.substr(0, fraction.find_last_not_of('0') + 1);
  if (!fraction.empty()) out.append(1, '.').append(fraction);
  return out;
}

std::string price_label(std::string_view amount, std::string_view asset, std::string_view unit) {
  auto known = std::find_if(known_assets.begin(), known_assets.end(), [&](auto& k) { return k.asset == asset; });
  std::string out{amount.empty() ? std::string_view{"?"} : amount};
  if (known != known_assets.end())
    out.append(" ").append(known->atomic_name);
  else
    out.append(" atomic units of ").append(asset.empty() ? std::string_view{"?"} : asset);
  out.append("/").append(unit.empty() ? std::string_view{"call"} : unit);
  if (known != known_assets.end() && all_digits(amount))
    out.append(" (").append(whole_coins(amount, known->decimals)).append(" ").append(known->asset).append(")");
  return out;
}

}  // namespace z402::rules
