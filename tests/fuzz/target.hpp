#pragma once
// One fuzz target per untrusted input. Each file defines its target with Z402_FUZZ_TARGET:
// built with -DZ402_FUZZ=ON (clang, libFuzzer) it is the binary's LLVMFuzzerTestOneInput; in the
// normal build every target registers itself in z402-fuzz-replay, which runs the committed
// corpus and every input that once crashed as ordinary CTest entries.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include <unistd.h>

namespace z402::fuzz {

using entry = int (*)(const std::uint8_t*, std::size_t);

/// Adds a target to the replay program's table (static initialisation, one per target).
struct registration {
  registration(std::string_view name, entry run);
};

/// A property that must hold for every input; a violation is a crash the fuzzer keeps.
inline void require(bool holds, const char* what) {
  if (holds) return;
  std::fprintf(stderr, "fuzz property violated: %s\n", what);
  std::abort();
}

/// A directory of this process's own for targets that write files: thousands of writes a
/// second, so in memory (/dev/shm) where there is one, not on a disk the other tests fsync to.
/// Held in a static, it is removed when the process exits (a crash leaves it, beside its input).
class scratch_dir {
 public:
  explicit scratch_dir(const std::string& name) {
    std::error_code ec;
    auto base = std::filesystem::is_directory("/dev/shm", ec) ? std::filesystem::path{"/dev/shm"} : std::filesystem::temp_directory_path();
    path_ = base / ("z402-fuzz-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::create_directories(path_);
  }
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;
  ~scratch_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::filesystem::path operator/(const char* file) const { return path_ / file; }

 private:
  std::filesystem::path path_;
};

inline std::string_view text_of(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace z402::fuzz

#ifdef Z402_FUZZ_ONE
#define Z402_FUZZ_TARGET(name) extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
#else
#define Z402_FUZZ_TARGET(name)                                                          \
  static int name##_one_input(const std::uint8_t* data, std::size_t size);              \
  static const ::z402::fuzz::registration name##_registration{#name, &name##_one_input}; \
  static int name##_one_input(const std::uint8_t* data, std::size_t size)
#endif
