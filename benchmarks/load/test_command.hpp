#pragma once
// `z402-load test URL [OPTIONS]`: load-tests a z402 Bazaar someone operates (docs/load-testing.md).
#include <string>
#include <vector>

namespace z402::bench {

/// Runs the command; its exit code: 0 passed, 99 a threshold breached, 1 the run could not be
/// trusted (TLS, a connection shortfall, a catalog that could not be read), 2 a usage error.
int test_command(const std::vector<std::string>& args);

}  // namespace z402::bench
