# CAF 0.17.6 as the imported targets CAF::core, CAF::io (the middleman) and CAF::openssl (its
# TLS), found in the system's include and library paths: Debian's libcaf-dev ships no CMake
# package of its own. Used by this tree's build and by z402Config.cmake for installed consumers.
if(TARGET CAF::core)
  return()
endif()
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
# The middleman (BASP): the cluster's FEED is published and reached through it.
find_library(CAF_IO_LIBRARY NAMES caf_io REQUIRED)
add_library(CAF::io UNKNOWN IMPORTED)
set_target_properties(CAF::io PROPERTIES IMPORTED_LOCATION "${CAF_IO_LIBRARY}" INTERFACE_LINK_LIBRARIES CAF::core)
# The cluster's links over mutual TLS: CAF's middleman with OpenSSL sessions.
find_library(CAF_OPENSSL_LIBRARY NAMES caf_openssl REQUIRED)
add_library(CAF::openssl UNKNOWN IMPORTED)
set_target_properties(CAF::openssl PROPERTIES IMPORTED_LOCATION "${CAF_OPENSSL_LIBRARY}" INTERFACE_LINK_LIBRARIES CAF::io)
