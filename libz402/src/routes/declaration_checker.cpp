#include "routes/declaration_checker.hpp"

#include "z402/core/crypto.hpp"
#include "z402/wire/json.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cstring>

namespace z402::routes {
namespace {

// Of the item as parsed, so spacing does not matter; key order does, since the content keeps
// the provider's order within accepts entries and extensions.
std::array<unsigned char, 16> digest_of(const boost::json::value& item) {
  auto full = crypto::sha256(boost::json::serialize(item));
  std::array<unsigned char, 16> d{};
  std::memcpy(d.data(), full.data(), d.size());
  return d;
}

bool same_identity(const rules::item_identity& a, const rules::item_identity& b) {
  return a.type == b.type && a.resource == b.resource && a.selector == b.selector;
}

// The content `catalog` holds for `provider`'s item `identity` when its text is `content`'s.
catalog::content_ptr held_by_catalog(const catalog::snapshot& catalog, const std::string& provider,
                                     const rules::item_identity& identity, const catalog::content_ptr& content) {
  auto items = catalog.items.begin();
  for (auto at : catalog.identity_index_of().positions(catalog.items, identity.type, identity.resource, identity.selector)) {
    auto& record = items[static_cast<std::ptrdiff_t>(at)]->record();
    if (record.provider == provider && record.content->json == content->json) return record.content;
  }
  return content;
}

}  // namespace

declaration_checker::declaration_checker(const config::rail_terms& terms, bool allow_http_resources, std::size_t max_items)
    : terms_(terms), allow_http_resources_(allow_http_resources), max_items_(max_items) {}

expected<catalog::declare_command> declaration_checker::check(const std::string& provider, const std::string& pay_to,
                                                              std::string_view body, std::string digest,
                                                              const catalog::snapshot& catalog) {
  // Items checked under another payTo are checked again: their accepts entries named it.
  const provider_memory* known = nullptr;
  if (auto found = providers_.find(provider); found != providers_.end() && found->second.pay_to == pay_to)
    known = &found->second;
  if (known && !digest.empty() && known->body_digest == digest)
    if (auto again = recall_body(*known, digest)) return std::move(*again);
  // Into one arena, like a settle body: the tree of up to 17 MiB of JSON is freed at once, not
  // node by node, once the items it holds are checked or recalled.
  auto doc = wire::parse_strict_document(body, max_body_depth);
  if (!doc) return doc.error();
  provider_memory next{pay_to, digest, {}, {}};
  auto command = check_items(provider, pay_to, **doc, std::move(digest), known, catalog, next);
  if (command) providers_.insert_or_assign(provider, std::move(next));
  return command;
}

std::optional<catalog::declare_command> declaration_checker::recall_body(const provider_memory& memory,
                                                                         const std::string& digest) const {
  catalog::declare_command command;
  command.digest = digest;
  command.items.reserve(memory.items.size());
  for (auto& item : memory.items) {
    auto content = item.content.lock();
    if (!content) return std::nullopt;
    command.items.push_back({item.identity, std::move(content)});
  }
  return command;
}

expected<catalog::declare_command> declaration_checker::check_items(const std::string& provider, const std::string& pay_to,
                                                                    const boost::json::value& body, std::string digest,
                                                                    const provider_memory* known,
                                                                    const catalog::snapshot& catalog, provider_memory& next) {
  rules::declaration_context ctx{terms_, pay_to, allow_http_resources_, max_items_};
  auto items = rules::declaration_items(body, ctx);
  if (!items) return items.error();
  auto recall = [&](const item_digest& d) -> const remembered_item* {
    if (!known) return nullptr;
    auto it = std::lower_bound(known->by_digest.begin(), known->by_digest.end(), d,
                               [&](std::size_t at, const item_digest& want) { return known->items[at].digest < want; });
    return it != known->by_digest.end() && known->items[*it].digest == d ? &known->items[*it] : nullptr;
  };
  // An item the last declaration listed with other bytes has changed: the catalog holds its old
  // text, and is not looked up. Any other item checked afresh may be there already (after a
  // restart, or when the catalog took it from another node).
  auto listed_before = [&](const rules::item_identity& identity) {
    return known && std::any_of(known->items.begin(), known->items.end(),
                                [&](const remembered_item& r) { return same_identity(r.identity, identity); });
  };

  rules::declared_identities identities;
  catalog::declare_command out;
  out.digest = std::move(digest);
  out.items.reserve((*items)->size());
  next.items.reserve((*items)->size());
  for (std::size_t i = 0; i < (*items)->size(); ++i) {
    auto& raw = (**items)[i];
    auto d = digest_of(raw);
    auto* same = recall(d);
    catalog::content_ptr content = same ? same->content.lock() : nullptr;
    rules::item_identity identity;
    if (content) {
      identity = same->identity;
    } else {
      auto item = rules::check_declared_item(raw, i, ctx);
      if (!item) return item.error();
      content = catalog::make_content(item->fields, item->identity.selector);
      identity = std::move(item->identity);
      if (same || !listed_before(identity)) content = held_by_catalog(catalog, provider, identity, content);
    }
    if (auto e = identities.add(identity, i); !e) return e.error();
    next.items.push_back({d, identity, content});
    out.items.push_back({std::move(identity), std::move(content)});
  }
  next.by_digest.resize(next.items.size());
  for (std::size_t i = 0; i < next.by_digest.size(); ++i) next.by_digest[i] = i;
  std::sort(next.by_digest.begin(), next.by_digest.end(),
            [&](std::size_t a, std::size_t b) { return next.items[a].digest < next.items[b].digest; });
  return out;
}

}  // namespace z402::routes
