#include "z402/version.hpp"

namespace z402 {

std::string_view version() { return Z402_VERSION; }

}  // namespace z402
