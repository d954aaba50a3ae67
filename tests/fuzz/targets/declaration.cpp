// POST /discovery/declarations: a whole body through the rules, as the handler runs them, then
// into the content the catalog keeps.
#include "target.hpp"

#include "z402/catalog/item.hpp"
#include "z402/rules/declaration.hpp"
#include "z402/wire/json.hpp"

#include <boost/json.hpp>

Z402_FUZZ_TARGET(declaration) {
  using namespace z402;
  static const auto terms = config::default_rail_terms();
  auto body = wire::parse_strict(fuzz::text_of(data, size), 64);
  if (!body) return 0;
  for (bool allow_http : {false, true}) {
    auto checked = rules::validate_declaration(*body, rules::declaration_context{terms, "uregtest1provider", allow_http, 128});
    if (!checked) {
      fuzz::require(checked.error().code == errc::invalid_request && !checked.error().message().empty(),
                    "a refusal names what is wrong");
      continue;
    }
    fuzz::require(!checked->empty() && checked->size() <= 128, "an accepted declaration has 1-128 items");
    for (auto& item : *checked) {
      auto content = catalog::make_content(item.fields, item.identity.selector);
      auto stored = wire::parse_strict(content->json, 64);
      fuzz::require(stored && stored->is_object(), "an accepted item is stored as one JSON object");
      fuzz::require(content->json.size() <= rules::max_item_bytes + 1024, "an accepted item stays within its size limit");
    }
  }
  return 0;
}
