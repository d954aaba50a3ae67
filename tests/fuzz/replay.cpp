// z402-fuzz-replay TARGET PATH...: runs one fuzz target over files and directories of inputs
// (its seed corpus and the inputs that once crashed it), without libFuzzer, so the normal build
// and the sanitizer build keep every one of them as a regression test.
#include "target.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

namespace z402::fuzz {
namespace {

std::map<std::string, entry, std::less<>>& table() {
  static std::map<std::string, entry, std::less<>> targets;
  return targets;
}

std::size_t run_file(entry run, const std::filesystem::path& file) {
  std::ifstream in{file, std::ios::binary};
  std::vector<char> bytes{std::istreambuf_iterator<char>{in}, {}};
  run(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  return 1;
}

}  // namespace

registration::registration(std::string_view name, entry run) { table().emplace(name, run); }

}  // namespace z402::fuzz

int main(int argc, char** argv) {
  using namespace z402::fuzz;
  if (argc < 3) {
    std::cerr << "usage: z402-fuzz-replay TARGET PATH...\ntargets:";
    for (auto& [name, run] : table()) std::cerr << ' ' << name;
    std::cerr << '\n';
    return 2;
  }
  auto it = table().find(std::string_view{argv[1]});
  if (it == table().end()) {
    std::cerr << "no fuzz target named " << argv[1] << '\n';
    return 2;
  }
  std::size_t inputs = 0;
  for (int i = 2; i < argc; ++i) {
    std::filesystem::path path{argv[i]};
    if (std::filesystem::is_directory(path)) {
      for (auto& e : std::filesystem::recursive_directory_iterator{path})
        if (e.is_regular_file()) inputs += run_file(it->second, e.path());
    } else if (std::filesystem::exists(path)) {
      inputs += run_file(it->second, path);
    }
  }
  if (inputs == 0) {
    std::cerr << "no inputs found for " << argv[1] << '\n';
    return 1;
  }
  std::cout << argv[1] << ": " << inputs << " inputs replayed\n";
  return 0;
}
