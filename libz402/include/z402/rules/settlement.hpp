#pragma once
// A settled payment as the catalog needs it (catalog.md §3, bazaar-wire.md §4): whose it is
// (paymentRequirements.payTo), which item it names (canonical URL + routeTemplate, method or
// toolName), and the payer's echoed metadata, kept raw: it is checked with the declaration rules
// only if it is about to create a payment-only item.
#include "z402/config/rail_terms.hpp"
#include "z402/rules/declaration.hpp"
#include "z402/error.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <memory>
#include <optional>
#include <string>

namespace z402::rules {

/// Cheap to copy: the body is shared, and read again only to list a payment-only item.
struct settlement {
  std::string pay_to;
  item_identity identity;
  std::string key;  // identity.key(), computed once on the caller's thread
  std::shared_ptr<const boost::json::value> body;  // the settle body as received
};

/// Reads a v1 or v2 settle body {"x402Version","paymentPayload","paymentRequirements"}; refused
/// (field and reason) when it does not name a payee and a resource.
expected<settlement> derive_settlement(boost::json::value body);

/// v1 network names ("base", "base-sepolia", ...) as CAIP-2 ids; a CAIP-2 id is returned as is.
std::string normalise_network(std::string_view network);

/// The fields of an item listed from payments alone: accepts from the server's requirements
/// (checked like a declared entry), the echoed URL, mimeType and bazaar extension checked with
/// the declaration rules, nothing else. Field names in the error are the settle body's.
expected<boost::json::object> payment_only_fields(const settlement& s, const config::rail_terms& terms, bool allow_http);

}  // namespace z402::rules
