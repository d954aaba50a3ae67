#pragma once
// The benchmark's realistic catalog: P providers x N items with varied descriptions, tags,
// parameters and schemas, and optionally padded so the whole catalog approaches a byte target
// (the 16 MiB budget). Deterministic: the same (p, i, options) always give the same item, so
// heartbeats re-declare exactly what was seeded, as a real service does.
#include "z402/config/rail_terms.hpp"

#include <boost/json/object.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace z402::bench {

struct catalog_shape {
  std::size_t providers = 32;
  std::size_t items = 128;       // per provider
  std::size_t fill_bytes = 0;    // 0: natural sizes; else pad items to about this many bytes in all
};

std::string provider_name(std::size_t p);
std::string provider_pay_to(std::size_t p);
std::string item_resource(std::size_t p, std::size_t i);

/// The declared item i of provider p.
boost::json::object make_item(const config::rail_terms& terms, const catalog_shape& shape, std::size_t p, std::size_t i);

/// The POST /discovery/declarations body of provider p. A `revision` changes the content of its
/// first item: its description ends with "Revision <revision>." (what a seller's edit does).
std::string declaration_body(const config::rail_terms& terms, const catalog_shape& shape, std::size_t p,
                             std::string_view revision = {});

/// A settle event for item i of provider p, as a rail node reports it: every payment carries a
/// nonce of its own (the catalog counts a payment once), so a body is made per event, with
/// `nonce` as its payload's.
struct settle_template {
  std::string head;  // up to the nonce
  std::string tail;  // after it
  std::string with_nonce(std::string_view nonce) const;
};
settle_template settle_body(const config::rail_terms& terms, const catalog_shape& shape, std::size_t p, std::size_t i);
/// The settle event of a payment meeting `requirements` for the resource `url`.
settle_template settle_for(const boost::json::object& requirements, std::string_view url);

}  // namespace z402::bench
