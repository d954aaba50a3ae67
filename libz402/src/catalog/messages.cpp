#include "z402/catalog/messages.hpp"

namespace z402::catalog {

caf::error make_error(ec code, std::string message) {
  return caf::error{static_cast<std::uint8_t>(code), caf::atom("z402"), caf::make_message(std::move(message))};
}

}  // namespace z402::catalog
