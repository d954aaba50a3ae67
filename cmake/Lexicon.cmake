# The search lexicon (docs/search.md, "The lexicon"): made at build time, from Debian's packaged
# data only, by z402-lexicon-build, and compiled into libz402 (src/search/lexicon_data.cpp).
# Each source a package gives is checked here, so a machine without one fails to configure
# with one line naming the package to install.
function(z402_require_file path package)
  if(NOT EXISTS "${path}")
    z402_missing("z402: the search lexicon needs the Debian package ${package} (${path} is missing): apt-get install ${package}")
  endif()
endfunction()

set(Z402_WORDNET_DIR /usr/share/wordnet)
set(Z402_FREEDICT_DIR /usr/share/dictd)
set(Z402_LEXICON_SOURCES "")
foreach(part noun verb adj adv)
  z402_require_file(${Z402_WORDNET_DIR}/data.${part} wordnet-base)
  z402_require_file(${Z402_WORDNET_DIR}/index.${part} wordnet-base)
  list(APPEND Z402_LEXICON_SOURCES ${Z402_WORDNET_DIR}/data.${part} ${Z402_WORDNET_DIR}/index.${part})
endforeach()
foreach(pair spa-eng por-eng fra-eng eng-spa eng-por eng-fra)
  z402_require_file(${Z402_FREEDICT_DIR}/freedict-${pair}.index dict-freedict-${pair})
  z402_require_file(${Z402_FREEDICT_DIR}/freedict-${pair}.dict.dz dict-freedict-${pair})
  list(APPEND Z402_LEXICON_SOURCES ${Z402_FREEDICT_DIR}/freedict-${pair}.index ${Z402_FREEDICT_DIR}/freedict-${pair}.dict.dz)
endforeach()
find_program(Z402_PERL perl)
if(Z402_PERL)
  execute_process(COMMAND ${Z402_PERL} -MLingua::StopWords -e 1 RESULT_VARIABLE z402_stopwords_missing OUTPUT_QUIET ERROR_QUIET)
endif()
if(NOT Z402_PERL OR z402_stopwords_missing)
  z402_missing("z402: the search lexicon needs the Debian package liblingua-stopwords-perl (Snowball's stopword lists): apt-get install liblingua-stopwords-perl")
endif()

# What the lexicon was made from, with the packages' versions, written into it
# (search::lexicon::sources).
set(Z402_LEXICON_PACKAGES wordnet-base dict-freedict-spa-eng dict-freedict-por-eng dict-freedict-fra-eng dict-freedict-eng-spa
                          dict-freedict-eng-por dict-freedict-eng-fra liblingua-stopwords-perl libstemmer0d)
set(Z402_LEXICON_MADE_FROM "")
foreach(package ${Z402_LEXICON_PACKAGES})
  execute_process(COMMAND dpkg-query -W -f=\${Version} ${package} OUTPUT_VARIABLE version ERROR_QUIET RESULT_VARIABLE failed)
  if(failed)
    set(version "not from a package")
  endif()
  list(APPEND Z402_LEXICON_MADE_FROM "${package} ${version}")
endforeach()
list(JOIN Z402_LEXICON_MADE_FROM ", " Z402_LEXICON_MADE_FROM)

set(Z402_LEXICON_DIR ${CMAKE_BINARY_DIR}/lexicon)
set(Z402_LEXICON ${Z402_LEXICON_DIR}/z402.lexicon)
add_executable(z402-lexicon-build ${PROJECT_SOURCE_DIR}/libz402/lexicon/build_lexicon.cpp ${PROJECT_SOURCE_DIR}/libz402/src/search/words.cpp)
target_include_directories(z402-lexicon-build PRIVATE ${PROJECT_SOURCE_DIR}/libz402/src)
target_link_libraries(z402-lexicon-build PRIVATE z402::text ZLIB::ZLIB)
add_custom_command(
  OUTPUT ${Z402_LEXICON}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${Z402_LEXICON_DIR}/stopwords
  COMMAND ${Z402_PERL} ${PROJECT_SOURCE_DIR}/libz402/lexicon/stopwords.pl ${Z402_LEXICON_DIR}/stopwords
  COMMAND z402-lexicon-build ${Z402_WORDNET_DIR} ${Z402_FREEDICT_DIR} ${Z402_LEXICON_DIR}/stopwords "${Z402_LEXICON_MADE_FROM}" ${Z402_LEXICON}
  DEPENDS z402-lexicon-build ${PROJECT_SOURCE_DIR}/libz402/lexicon/stopwords.pl ${Z402_LEXICON_SOURCES}
  COMMENT "Making the search lexicon from WordNet, FreeDict and Snowball's stopwords" VERBATIM)
add_custom_target(z402-lexicon DEPENDS ${Z402_LEXICON})
