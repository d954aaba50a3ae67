# Fails when the embedding page (docs/embedding.md) no longer shows each of EXAMPLES (files in
# tests/embedding/, separated by commas) word for word, so every documented example is one that compiles and
# passes.
file(READ "${README}" readme)
string(REPLACE "," ";" examples "${EXAMPLES}")
foreach(path ${examples})
  file(READ "${path}" example)
  string(FIND "${readme}" "${example}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${README} does not contain ${path} verbatim; copy it in")
  endif()
endforeach()
