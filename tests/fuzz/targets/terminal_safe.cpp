// terminal_safe: every text from a catalog passes through it before a terminal shows it.
#include "target.hpp"

#include "z402/rules/text.hpp"

Z402_FUZZ_TARGET(terminal_safe) {
  using namespace z402;
  auto shown = rules::terminal_safe(fuzz::text_of(data, size));
  fuzz::require(rules::check_shown_text(shown, "text").has_value(), "what terminal_safe returns is safe to show");
  fuzz::require(rules::terminal_safe(shown) == shown, "terminal_safe changes nothing safe");
  return 0;
}
