#include "z402/catalog/messages.hpp"

namespace z402::catalog {

std::string_view to_string(settle_rejection r) {
  switch (r) {
    case settle_rejection::invalid_body: return "invalid_body";
    case settle_rejection::unknown_payee: return "unknown_payee";
    case settle_rejection::not_declared: return "not_declared";
    case settle_rejection::payment_item_cap: return "payment_item_cap";
    case settle_rejection::invalid_echo: return "invalid_echo";
    case settle_rejection::catalog_full: return "catalog_full";
    case settle_rejection::unavailable: return "unavailable";
  }
  return "unavailable";
}

}  // namespace z402::catalog
