#pragma once
// The rail's terms, set by the operator: what every accepts entry must carry besides payTo,
// amount and maxTimeoutSeconds (docs/contract.md §1).
#include "z402/error.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace z402::config {

struct rail_terms {
  std::string scheme;
  std::string network;
  std::string asset;
  boost::json::object extra;  // windowZat, creditRatioBps, creditCapZat, zeroConfMinExpiryBlocks, termsVersion
};

/// The z402 regtest defaults. `termsVersion` is derived from the other terms (see below).
rail_terms default_rail_terms();

/// First 16 hex digits of SHA-256 over the terms without `termsVersion`: a change of terms
/// changes the version, so a seller's stale declaration fails loudly instead of listing old terms.
std::string derive_terms_version(const rail_terms& terms);

/// {"scheme":...,"network":...,"asset":...,"extra":{...}}
boost::json::object to_json(const rail_terms& terms);

/// The accepts entry these terms make for one payee and price: what a declared item and a
/// 402 carry, and what a settle's paymentRequirements hold.
boost::json::object accepts_entry(const rail_terms& terms, std::string_view pay_to, std::string_view amount,
                                  std::int64_t max_timeout_seconds);

/// Reads terms from their JSON form; fields left out keep `base`'s values. invalid_request
/// naming the field when one has the wrong type.
expected<rail_terms> terms_from_json(const boost::json::value& v, rail_terms base);

}  // namespace z402::config
