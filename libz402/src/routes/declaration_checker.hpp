#pragma once
// Declaration bodies into declare commands, on the server's checks thread (declaration_desk),
// checking again only what changed. A provider re-declares all its routes every 30 s and when
// one changes (docs/contract.md §2), and the rules of one item, its bazaar schema compiled and
// applied, its content serialised and tokenised for search, were 11-13 ms of server CPU for 128
// items of which one had changed (benchmarks/results/profile.md, "a changed declaration").
//
// An item's checks depend only on the item and the context (rules::check_declared_item), so an
// item byte for byte as the provider declared it last time, under the same payTo, takes the
// content made for it then, while that content still lives; a body byte for byte the last one
// (a heartbeat) is not even parsed. Contents are held weakly: they live as long as the catalog
// (or a command on its way to it) holds them, so what is remembered is bounded by what the
// catalog lists, and an item the catalog dropped is checked again if it comes back. An item
// checked afresh that the catalog already holds with the same text takes the catalog's content,
// so the catalog sees its own content unchanged (a content that differs only by its pointer
// would count as a rewrite). Nothing comes back from the catalog: the walk goes one way.
//
// Not thread-safe: one thread checks every declaration.
#include "z402/catalog/messages.hpp"
#include "z402/catalog/snapshot.hpp"
#include "z402/rules/declaration.hpp"

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace z402::routes {

class declaration_checker {
 public:
  /// Every declaration's context but the provider's payTo: fixed for the server's run.
  declaration_checker(const config::rail_terms& terms, bool allow_http_resources, std::size_t max_items);

  /// The command for `body` (its JSON text, `digest` its SHA-256, or empty) declared by `provider`
  /// with `pay_to`, or the first rule it broke (the same answer as parsing it strictly and then
  /// rules::validate_declaration). `catalog` is the newest snapshot, for contents it already holds.
  expected<catalog::declare_command> check(const std::string& provider, const std::string& pay_to, std::string_view body,
                                           std::string digest, const catalog::snapshot& catalog);

  /// Deepest nesting a declaration body may have: items[] > item > extensions > bazaar (32), and headroom.
  static constexpr std::size_t max_body_depth = 64;

 private:
  using item_digest = std::array<unsigned char, 16>;
  struct remembered_item {
    item_digest digest;  // of the item as parsed
    rules::item_identity identity;
    std::weak_ptr<const catalog::item_content> content;
  };
  // A provider's last declaration that passed the rules.
  struct provider_memory {
    std::string pay_to;                  // the context its items were checked in
    std::string body_digest;             // of its body
    std::vector<remembered_item> items;  // in the body's order
    std::vector<std::size_t> by_digest;  // positions in `items`, sorted by their digest
  };

  /// The last body again, while every content it made still lives.
  std::optional<catalog::declare_command> recall_body(const provider_memory& memory, const std::string& digest) const;
  /// Every item checked, or recalled from `known`; `fresh` takes a new content or the catalog's.
  expected<catalog::declare_command> check_items(const std::string& provider, const std::string& pay_to,
                                                 const boost::json::value& body, std::string digest,
                                                 const provider_memory* known, const catalog::snapshot& catalog,
                                                 provider_memory& next);

  const config::rail_terms& terms_;
  bool allow_http_resources_;
  std::size_t max_items_;
  std::unordered_map<std::string, provider_memory> providers_;
};

}  // namespace z402::routes
