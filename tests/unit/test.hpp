#pragma once
// Shared by every suite: CAF test with the short FAIL macro that 0.17.6's dsl.hpp expects.
#define FAIL(msg) CAF_FAIL(msg)
#include <caf/test/unit_test.hpp>

#include <boost/json.hpp>

#include <string>

namespace z402::test {

/// Parses a JSON literal written in a test (it must be valid).
inline boost::json::value json(std::string_view text) { return boost::json::parse(text); }

}  // namespace z402::test
