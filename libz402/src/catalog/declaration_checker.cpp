#include "catalog/declaration_checker.hpp"

#include "z402/core/crypto.hpp"

#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cstring>

namespace z402::catalog {
namespace {

// Of the item as parsed, so spacing does not matter; key order does, since the content keeps
// the provider's order within accepts entries and extensions.
std::array<unsigned char, 16> digest_of(const boost::json::value& item) {
  auto full = crypto::sha256(boost::json::serialize(item));
  std::array<unsigned char, 16> d{};
  std::memcpy(d.data(), full.data(), d.size());
  return d;
}

}  // namespace

declaration_checker::declaration_checker(const config::rail_terms& terms, bool allow_http_resources, std::size_t max_items)
    : terms_(terms), allow_http_resources_(allow_http_resources), max_items_(max_items) {}

expected<declaration_checker::checked> declaration_checker::check(const std::string& provider, const std::string& pay_to,
                                                                   const boost::json::value& body, std::string digest) {
  rules::declaration_context ctx{terms_, pay_to, allow_http_resources_, max_items_};
  auto items = rules::declaration_items(body, ctx);
  if (!items) return items.error();
  // Items checked under another payTo are checked again: their accepts entries named it.
  const std::vector<remembered_item>* known = nullptr;
  if (auto found = providers_.find(provider); found != providers_.end() && found->second.pay_to == pay_to)
    known = &found->second.items;
  auto recall = [&](const item_digest& d) -> const remembered_item* {
    if (!known) return nullptr;
    auto it = std::lower_bound(known->begin(), known->end(), d, [](auto& r, auto& want) { return r.digest < want; });
    return it != known->end() && it->digest == d ? &*it : nullptr;
  };

  rules::declared_identities identities;
  checked out;
  out.command.digest = std::move(digest);
  out.command.items.reserve((*items)->size());
  out.items.reserve((*items)->size());
  for (std::size_t i = 0; i < (*items)->size(); ++i) {
    auto& raw = (**items)[i];
    auto d = digest_of(raw);
    auto* same = recall(d);
    content_ptr content = same ? same->content.lock() : nullptr;
    rules::item_identity identity;
    if (content) {
      identity = same->identity;
    } else {
      auto item = rules::check_declared_item(raw, i, ctx);
      if (!item) return item.error();
      content = make_content(item->fields, item->identity.selector);
      identity = std::move(item->identity);
    }
    if (auto e = identities.add(identity, i); !e) return e.error();
    out.items.push_back({d, identity});
    out.command.items.push_back({std::move(identity), std::move(content)});
  }
  return out;
}

void declaration_checker::remember(const std::string& provider, const std::string& pay_to, std::vector<checked_item> items,
                                   const std::vector<content_ptr>& kept) {
  if (kept.size() != items.size()) return;
  provider_items next{pay_to, {}};
  next.items.reserve(items.size());
  for (std::size_t i = 0; i < items.size(); ++i)
    next.items.push_back({items[i].digest, std::move(items[i].identity), kept[i]});
  std::sort(next.items.begin(), next.items.end(), [](auto& a, auto& b) { return a.digest < b.digest; });
  providers_.insert_or_assign(provider, std::move(next));
}

}  // namespace z402::catalog
