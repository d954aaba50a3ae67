#include "z402/rules/rule_error.hpp"

namespace z402::rules {

std::string rule_error::message() const {
  std::string where = item ? "items[" + std::to_string(*item) + "]" : std::string{};
  if (!field.empty()) where += where.empty() ? field : "." + field;
  return where.empty() ? reason : where + ": " + reason;
}

}  // namespace z402::rules
