#include "rules/rule_family.hpp"

#include <algorithm>

namespace z402::rules {

std::size_t rule_family_of(std::string_view field, bool about_an_item) {
  if (!about_an_item) return 0;
  auto head = field.substr(0, field.find_first_of(".["));
  auto at = std::find(rule_families.begin() + 1, rule_families.begin() + budget_family, head);
  return at == rule_families.begin() + budget_family ? rule_families.size() - 1
                                                      : static_cast<std::size_t>(at - rule_families.begin());
}

}  // namespace z402::rules
