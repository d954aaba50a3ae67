// The CAF test engine and its main(): exactly one translation unit includes it.
#include <caf/test/unit_test_impl.hpp>
