#pragma once
// extensions.bazaar as official facilitators validate it (docs/wire.md §3): no remote $ref
// or $id, `info` valid against `schema` (valijson), protocol checks, bounded sizes.
#include "z402/error.hpp"

#include <boost/json/value.hpp>

#include <cstddef>
#include <optional>
#include <string>

namespace z402::rules {

constexpr std::size_t max_bazaar_depth = 32;
constexpr std::size_t max_schema_bytes = 64u << 10;
constexpr std::size_t max_example_bytes = 16u << 10;
constexpr std::size_t max_schema_pattern_bytes = 256;  // std::regex is recursive: keep patterns short

/// What the catalog takes from a valid bazaar extension.
struct bazaar_facts {
  std::string input_type;                     // "http" or "mcp"
  std::string method;                         // HTTP: GET when absent
  std::string tool_name;                      // MCP
  std::optional<std::string> route_template;  // only a valid one
};

/// How to treat an invalid routeTemplate: a declaration is the provider's own word and gets
/// a clear refusal; an echo from a payer is ignored and the concrete path is used.
enum class route_template_policy { refuse_invalid, ignore_invalid };

/// Checks `bazaar` (the value of extensions.bazaar). Field names in the error are relative
/// to the item ("extensions.bazaar.info.input.method").
expected<void> check_bazaar_extension(const boost::json::value& bazaar, route_template_policy policy,
                                                  bazaar_facts& facts);

}  // namespace z402::rules
