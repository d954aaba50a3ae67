# Fails when the README no longer shows tests/embedding/example.cpp word for word, so the
# documented embedding example is always one that compiles and passes.
file(READ "${README}" readme)
file(READ "${EXAMPLE}" example)
string(FIND "${readme}" "${example}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "README.md does not contain tests/embedding/example.cpp verbatim; copy it into the README")
endif()
