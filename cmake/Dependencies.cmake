# Everything comes from Debian packages (see .ci/install-deps); nothing is downloaded here.

# A missing package stops the configuration with one line that names it (CMake's own error
# message would wrap it over several).
function(z402_missing line)
  message(NOTICE "${line}")
  message(FATAL_ERROR "a package the build needs is missing (the line above names it)")
endfunction()

# CAF 0.17.6: Debian ships no CMake package config; z402CAF.cmake imports it (and is installed
# with z402's own package, so a project that finds z402 gets the same targets).
find_package(Threads REQUIRED)
include(${CMAKE_CURRENT_LIST_DIR}/z402CAF.cmake)

# Boost 1.81: Beast and Asio are header-only, JSON is compiled.
find_package(Boost 1.81...<1.82 REQUIRED COMPONENTS json CONFIG)

find_package(OpenSSL 3 REQUIRED)
find_package(ZLIB REQUIRED)  # gzip for responses over 1 KiB

# valijson: header-only, unpacked from Debian's package by .ci/install-deps.
find_path(VALIJSON_INCLUDE_DIR NAMES valijson/validator.hpp
          HINTS "${PROJECT_SOURCE_DIR}/.deps/valijson/include" REQUIRED)
add_library(valijson INTERFACE IMPORTED)
# Without exceptions valijson calls abort() on a malformed schema: a hostile seller could stop
# the server with one declaration. With them, the rules answer 400.
set_target_properties(valijson PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${VALIJSON_INCLUDE_DIR}"
                      INTERFACE_COMPILE_DEFINITIONS VALIJSON_USE_EXCEPTIONS=1)

# tcmalloc (gperftools, Debian): settle events are allocated on the caller's thread and freed on
# a CAF worker; glibc malloc spends most of the settle path consolidating and locking for that
# (measured: 120k settles/s with glibc, 460k/s with tcmalloc, in-process). The server and the
# benchmarks link it; the library does not impose an allocator on an embedding rail node.
option(Z402_TCMALLOC "link z402-bazaar and the benchmarks with tcmalloc_minimal" ON)
if(Z402_TCMALLOC)
  find_library(TCMALLOC_MINIMAL_LIBRARY NAMES tcmalloc_minimal REQUIRED)
endif()
function(z402_use_fast_allocator target)
  if(Z402_TCMALLOC)
    target_link_libraries(${target} PRIVATE ${TCMALLOC_MINIMAL_LIBRARY})
    target_compile_definitions(${target} PRIVATE Z402_WITH_TCMALLOC=1)
  endif()
endfunction()

# Search's words (docs/search.md): ICU classes and folds characters, Snowball (libstemmer) stems.
# Linked by name (-licuuc -lstemmer), so the installed package names them as this build did.
find_path(Z402_ICU_INCLUDE_DIR NAMES unicode/uchar.h)
find_library(Z402_ICU_UC_LIBRARY NAMES icuuc)
if(NOT Z402_ICU_INCLUDE_DIR OR NOT Z402_ICU_UC_LIBRARY)
  z402_missing("z402: search needs the Debian package libicu-dev (ICU's unicode/uchar.h and libicuuc): apt-get install libicu-dev")
endif()
find_path(Z402_STEMMER_INCLUDE_DIR NAMES libstemmer.h)
find_library(Z402_STEMMER_LIBRARY NAMES stemmer)
if(NOT Z402_STEMMER_INCLUDE_DIR OR NOT Z402_STEMMER_LIBRARY)
  z402_missing("z402: search needs the Debian package libstemmer-dev (Snowball's libstemmer.h and libstemmer): apt-get install libstemmer-dev")
endif()
add_library(z402-text INTERFACE)
add_library(z402::text ALIAS z402-text)
target_link_libraries(z402-text INTERFACE icuuc stemmer)
