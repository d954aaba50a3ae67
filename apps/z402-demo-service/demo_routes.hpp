#pragma once
// The demo service's three paid routes, one of each shape: a GET with query parameters, a
// POST with a JSON body, and a GET with a path parameter. Answers are deterministic.
#include "z402/kit/paid_route.hpp"

#include <vector>

namespace z402::demo {

std::vector<kit::paid_route> demo_routes();

}  // namespace z402::demo
