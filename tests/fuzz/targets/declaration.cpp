// POST /discovery/declarations: a whole body through the rules, as the declaration desk runs them
// (routes::declaration_checker, cold and then recalling what it checked, item by item and by
// the body's digest), beside rules::validate_declaration, then into the content the catalog keeps.
#include "target.hpp"

#include "routes/declaration_checker.hpp"
#include "z402/catalog/snapshot.hpp"
#include "z402/catalog/item.hpp"
#include "z402/rules/declaration.hpp"
#include "z402/wire/json.hpp"

#include <boost/json.hpp>

Z402_FUZZ_TARGET(declaration) {
  using namespace z402;
  static const auto terms = config::default_rail_terms();
  static const catalog::snapshot empty_catalog;
  auto text = fuzz::text_of(data, size);
  auto body = wire::parse_strict(text, 64);
  if (!body) {
    routes::declaration_checker checker{terms, false, 128};
    fuzz::require(!checker.check("p", "uregtest1provider", text, "", empty_catalog), "the checker refuses what does not parse");
    return 0;
  }
  for (bool allow_http : {false, true}) {
    auto checked = rules::validate_declaration(*body, rules::declaration_context{terms, "uregtest1provider", allow_http, 128});
    routes::declaration_checker checker{terms, allow_http, 128};
    auto cold = checker.check("p", "uregtest1provider", text, "digest", empty_catalog);
    fuzz::require(cold.has_value() == checked.has_value(), "the checker accepts what the rules accept");
    if (!checked) {
      fuzz::require(checked.error().code == errc::invalid_request && !checked.error().message().empty(),
                    "a refusal names what is wrong");
      fuzz::require(cold.error().message() == checked.error().message(), "the checker refuses as the rules do");
      continue;
    }
    fuzz::require(!checked->empty() && checked->size() <= 128, "an accepted declaration has 1-128 items");
    fuzz::require(cold->items.size() == checked->size(), "the checker keeps every item");
    std::vector<catalog::content_ptr> kept;
    for (std::size_t i = 0; i < checked->size(); ++i) {
      auto& item = (*checked)[i];
      auto content = catalog::make_content(item.fields, item.identity.selector);
      auto stored = wire::parse_strict(content->json, 64);
      fuzz::require(stored && stored->is_object(), "an accepted item is stored as one JSON object");
      fuzz::require(content->json.size() <= rules::max_item_bytes + 1024, "an accepted item stays within its size limit");
      auto& made = cold->items[i];
      fuzz::require(made.identity.key() == item.identity.key() && made.content->json == content->json,
                    "the checker builds what the rules accept");
      kept.push_back(made.content);
    }
    // Declared again as it was, read again or known by its digest: every item is recalled,
    // none checked or built again, while its content lives.
    for (const char* digest : {"digest", ""}) {
      auto warm = checker.check("p", "uregtest1provider", text, digest, empty_catalog);
      fuzz::require(warm && warm->items.size() == kept.size(), "a repeat is accepted whole");
      for (std::size_t i = 0; i < kept.size(); ++i)
        fuzz::require(warm->items[i].content == kept[i], "a repeated item takes the content kept for it");
    }
  }
  return 0;
}
