#pragma once
// Origin-bound listings (docs/trust.md, "Origin binding"): a listing's payTo is only as good as
// the declaration that set it, so before the agent acts on a pick it asks the listing's own
// origin. The origin must name the listing's payTo for that resource in its manifest
// (/.well-known/x402) and its live 402 must ask for the same payTo. The facilitator never does
// this: it is the agent's check, made from the agent's machine, under bounds, and never towards
// an address the public internet does not route unless a test allows it.
#include "z402/http/client.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace z402::agent {

struct origin_policy {
  bool allow_private = false;   // loopback and private addresses: tests, or a seller checking its own machine
  bool require_https = true;    // the agent reads origins over HTTPS only; z402-seller check also reads plain http
  std::chrono::milliseconds deadline{10'000};  // for the whole check: every redirect, the manifest and the 402
  std::size_t max_manifest_bytes = 256u << 10;
  int max_redirects = 3;        // each to the same origin, without userinfo
};

/// Why a listing is or is not bound to its origin.
struct origin_verdict {
  bool verified = false;
  /// The check that failed ("" when verified): url (not https, userinfo, an MCP tool), manifest
  /// (unreadable, too large, redirected away, no entry for the resource), manifest-payTo (the
  /// origin names another payTo), 402 (no live 402), 402-payTo (the live 402 asks another payTo).
  std::string check;
  std::string reason;  // terminal-safe
  /// "origin-verified", or "not origin-verified (CHECK: REASON)".
  std::string line() const;
};

/// Why `resource_url` cannot be bound to an origin before anything is read (not a URL, userinfo,
/// not https when the policy wants it), or nullopt.
std::optional<origin_verdict> url_refusal(std::string_view resource_url, const origin_policy& policy);

/// What the origin's manifest says of `method` `resource_url`: whether it names every payTo in
/// `pay_tos` for it. Checks the URL, reads the manifest (following same-origin redirects) and
/// matches its entries. `deadline` bounds it.
origin_verdict check_manifest(http::client& client, std::string_view method, std::string_view resource_url,
                              const std::vector<std::string>& pay_tos, const origin_policy& policy,
                              std::chrono::steady_clock::time_point deadline);

/// check_manifest for a catalog item (its method, resource and every accepts entry's payTo),
/// then its live 402 asked unpaid: it must ask for those payTos too.
origin_verdict verify_origin(http::client& client, const boost::json::object& item, const origin_policy& policy);

/// The payTos `manifest` names for `method` `resource_url`: those of each entry (in "routes",
/// the kit's, or "items"/"resources", a DiscoveryResource list) whose URL ("url", "resource" or
/// "resource.url") is the resource's or a pattern of it (":name" or "{name}" segments), and
/// whose "method", when it has one, is `method`; each entry's accepts[].payTo.
/// nullopt when no entry is the resource.
std::optional<std::vector<std::string>> manifest_pay_tos(const boost::json::object& manifest, std::string_view method,
                                                         std::string_view resource_url);

}  // namespace z402::agent
