#pragma once
// Declaration bodies into declare commands, on the server's checks thread (http::app_state::
// checks), checking again only the items that changed. A provider re-declares all its routes
// when one changes (docs/contract.md §2), and the rules of one item, its bazaar schema compiled and
// applied, its content serialised and tokenised for search, were 11-13 ms of server CPU for 128
// items of which one had changed (benchmarks/results/profile.md, "a changed declaration").
// An item's checks depend only on the item and the context (rules::check_declared_item), so
// an item byte for byte as the provider declared it last time, under the same payTo, takes
// the content the catalog holds for it, if it still does. Not thread-safe: one thread checks
// every declaration and remembers what the catalog took.
#include "z402/catalog/messages.hpp"
#include "z402/rules/declaration.hpp"

#include <boost/json/value.hpp>

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace z402::catalog {

class declaration_checker {
 public:
  using item_digest = std::array<unsigned char, 16>;
  /// One item of a checked declaration, to be remembered once the catalog has taken it.
  struct checked_item {
    item_digest digest;  // of the item as parsed
    rules::item_identity identity;
  };
  struct checked {
    declare_command command;
    std::vector<checked_item> items;  // in the order of command.items
  };

  /// Every declaration's context but the provider's payTo: fixed for the server's run.
  declaration_checker(const config::rail_terms& terms, bool allow_http_resources, std::size_t max_items);

  /// The command for `body`, declared by `provider` with `pay_to`, or the first rule it broke
  /// (the same answer as rules::validate_declaration). `digest` identifies the body, or is empty.
  expected<checked> check(const std::string& provider, const std::string& pay_to, const boost::json::value& body,
                          std::string digest);

  /// The catalog took `provider`'s declaration of `items`, checked under `pay_to`, and holds
  /// `kept[i]` for items[i] (write_outcome::kept): what its next declaration is compared with.
  void remember(const std::string& provider, const std::string& pay_to, std::vector<checked_item> items,
                const std::vector<content_ptr>& kept);

 private:
  // The content is not kept alive here: once the catalog drops it (the item changed or left),
  // the item is checked again if it comes back.
  struct remembered_item {
    item_digest digest;
    rules::item_identity identity;
    std::weak_ptr<const item_content> content;
  };
  // A provider's last declaration the catalog took, sorted by digest.
  struct provider_items {
    std::string pay_to;  // the context its items were checked in
    std::vector<remembered_item> items;
  };

  const config::rail_terms& terms_;
  bool allow_http_resources_;
  std::size_t max_items_;
  std::unordered_map<std::string, provider_items> providers_;
};

}  // namespace z402::catalog
