# Everything comes from Debian packages (see .ci/install-deps); nothing is downloaded here.

# CAF 0.17.6: Debian ships no CMake package config, so import the libraries by hand.
find_package(Threads REQUIRED)
find_path(CAF_INCLUDE_DIR NAMES caf/all.hpp REQUIRED)
find_library(CAF_CORE_LIBRARY NAMES caf_core REQUIRED)
file(STRINGS "${CAF_INCLUDE_DIR}/caf/config.hpp" _caf_version_line REGEX "^#define CAF_VERSION [0-9]+")
string(REGEX REPLACE "^#define CAF_VERSION ([0-9]+).*" "\\1" CAF_VERSION_NUMBER "${_caf_version_line}")
if(CAF_VERSION_NUMBER LESS 1700 OR CAF_VERSION_NUMBER GREATER_EQUAL 1800)
  message(FATAL_ERROR "z402 needs CAF 0.17.x, found ${CAF_VERSION_NUMBER}")
endif()
add_library(CAF::core UNKNOWN IMPORTED)
set_target_properties(CAF::core PROPERTIES
  IMPORTED_LOCATION "${CAF_CORE_LIBRARY}"
  INTERFACE_INCLUDE_DIRECTORIES "${CAF_INCLUDE_DIR}"
  INTERFACE_LINK_LIBRARIES Threads::Threads)
# The middleman (BASP): the cluster's FEED is published and reached through it (issue 16).
find_library(CAF_IO_LIBRARY NAMES caf_io REQUIRED)
add_library(CAF::io UNKNOWN IMPORTED)
set_target_properties(CAF::io PROPERTIES IMPORTED_LOCATION "${CAF_IO_LIBRARY}" INTERFACE_LINK_LIBRARIES CAF::core)
# The cluster's links over mutual TLS (issue 16): CAF's middleman with OpenSSL sessions.
find_library(CAF_OPENSSL_LIBRARY NAMES caf_openssl REQUIRED)
add_library(CAF::openssl UNKNOWN IMPORTED)
set_target_properties(CAF::openssl PROPERTIES IMPORTED_LOCATION "${CAF_OPENSSL_LIBRARY}" INTERFACE_LINK_LIBRARIES CAF::io)

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
