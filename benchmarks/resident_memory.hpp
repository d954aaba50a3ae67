#pragma once
// What the benchmarks read of their own process's memory.
#include <fstream>
#include <string>

namespace z402::bench {

/// Kilobytes resident (VmRSS).
inline long rss_kb() {
  std::ifstream status{"/proc/self/status"};
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return 0;
}

}  // namespace z402::bench
