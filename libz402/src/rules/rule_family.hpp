#pragma once
// Rule families: which part of a declaration a refusal is about, as a small fixed set (the
// label /metrics counts refused declarations by; a field path itself could be anything).
#include <array>
#include <cstddef>
#include <string_view>

namespace z402::rules {

inline constexpr std::array<std::string_view, 13> rule_families{
    "body",        // not JSON, not an object, items missing or too many
    "resource",    "type", "x402Version", "accepts", "description", "mimeType", "serviceName", "tags", "iconUrl",
    "extensions",  // the bazaar extension, its schemas and the z402 unit
    "budget",      // the catalog's limits (items, bytes) refused the change
    "other",
};

/// The family of a refusal naming `field` (a path inside an item, e.g. "accepts[0].payTo"), or
/// "body" when the refusal is about no item.
std::size_t rule_family_of(std::string_view field, bool about_an_item);

inline constexpr std::size_t budget_family = 11;
static_assert(rule_families[budget_family] == "budget");

}  // namespace z402::rules
