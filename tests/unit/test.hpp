#pragma once
// Shared by every suite: CAF test with the short FAIL macro that 0.17.6's dsl.hpp expects.
#define FAIL(msg) CAF_FAIL(msg)
#include <caf/test/unit_test.hpp>

#include "z402/core/crypto.hpp"

#include <boost/json.hpp>

#include <filesystem>
#include <string>

namespace z402::test {

/// Parses a JSON literal written in a test (it must be valid).
inline boost::json::value json(std::string_view text) { return boost::json::parse(text); }

/// A directory of its own under the system's temporary directory, removed with everything in
/// it when the test is done.
struct temp_dir {
  std::filesystem::path path;
  explicit temp_dir(std::string_view prefix)
      : path{std::filesystem::temp_directory_path() / (std::string{prefix} + "-" + crypto::random_key("").substr(0, 12))} {
    std::filesystem::create_directories(path);
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
};

}  // namespace z402::test
