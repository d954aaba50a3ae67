#pragma once
// The version of this build (the CMake project's), for --version and /metrics.
#include <string_view>

namespace z402 {

std::string_view version();

}  // namespace z402
