# Instrumented builds, each in a build directory of its own, with clang (g++ takes
# 3.7 times as long to compile a translation unit with the sanitizers):
#   -DZ402_SANITIZE=address,undefined -DZ402_FUZZ=ON   the library, the apps, the tests and the
#       libFuzzer targets under ASan and UBSan: tests/sanitize/run runs the whole suite in it,
#       tests/fuzz/run the fuzz targets (build-sanitize/)
#   -DZ402_SANITIZE=thread   ThreadSanitizer, for the actor and settle suites (build-thread/)
# A sanitizer report aborts the process (no recovery), so a report is always a failure.
set(Z402_SANITIZE "" CACHE STRING "sanitizers to build with, e.g. address,undefined or thread")
option(Z402_FUZZ "also build the libFuzzer targets of tests/fuzz (clang)" OFF)

if(Z402_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "Z402_FUZZ needs clang: cmake -DCMAKE_CXX_COMPILER=clang++ -DZ402_FUZZ=ON")
  endif()
  if(NOT Z402_SANITIZE)
    set(Z402_SANITIZE "address,undefined")
  endif()
  # Coverage for libFuzzer everywhere; only the fuzz targets link its main.
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()

if(Z402_SANITIZE)
  add_compile_options(-fsanitize=${Z402_SANITIZE} -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${Z402_SANITIZE})
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    # clang 14's -fsanitize=function (part of undefined) puts prologue data in inline functions'
    # sections that the assembler cannot relate ("Cannot represent a difference across
    # sections" in Asio's code); the check matters for C-style function pointer casts only.
    add_compile_options(-fno-sanitize=function)
  endif()
  # -O1, after the build type's -O2 (so it wins): the level the sanitizers' own documentation
  # suggests (stacks keep their frames), and a quarter less compile time per translation unit
  # here (provider_actor.cpp: 19.9 s against 25.6 s), which CI's run pays for every file.
  add_compile_options(-O1)
  # ASan and TSan replace malloc; tcmalloc would take it back from them.
  set(Z402_TCMALLOC OFF CACHE BOOL "" FORCE)
endif()
