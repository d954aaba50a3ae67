#pragma once
// A settled payment as the catalog needs it (docs/contract.md §3, docs/wire.md §4): whose it is
// (paymentRequirements.payTo), which item it names (canonical URL + routeTemplate, method or
// toolName), and the payer's echoed metadata, kept raw: it is checked with the declaration rules
// only if it is about to create a payment-only item.
#include "z402/config/rail_terms.hpp"
#include "z402/rules/declaration.hpp"
#include "z402/error.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace z402::rules {

/// Which payment a settle reports: the first 128 bits of the SHA-256 of its paymentPayload in
/// canonical form (wire::canonical_json), so a rail node's retry, to this node or to another,
/// names the same payment however its JSON is spaced or ordered. The payload carries the payer's
/// signature over a fresh nonce, so two payments never share it.
struct payment_id {
  std::uint64_t high = 0;
  std::uint64_t low = 0;
  friend bool operator==(const payment_id&, const payment_id&) = default;
};

/// The id is already a digest: its low half is as good a hash as any.
struct payment_id_hash {
  std::size_t operator()(const payment_id& id) const { return static_cast<std::size_t>(id.low); }
};

/// A settle as the catalog counts it. Cheap to copy: its text (the item's key, the payee and the
/// body as received) is one shared allocation. It is made on the caller's thread and freed on the
/// catalog's, and each allocation that crosses costs a cache miss on both (profile.md,
/// 2026-12-04): four (the body, its count, the key, the resource) became one.
class settlement {
 public:
  settlement() = default;
  settlement(const item_identity& identity, std::string_view pay_to, std::string_view body, payment_id payment)
      : settlement(identity.type, identity.resource, identity.selector, pay_to, body, payment) {}
  settlement(std::string_view type, std::string_view resource, std::string_view selector, std::string_view pay_to,
             std::string_view body, payment_id payment);

  /// The views below are into its text: taken from a temporary settlement they would dangle.
  /// item_identity::key() of the item it names: the catalog's key for it.
  std::string_view key() const& { return {text_.get(), key_size_}; }
  std::string_view key() const&& = delete;
  /// The item it names (type, canonical resource, method or toolName), split from the key: for
  /// the rare paths that need its parts.
  item_identity identity() const;
  /// paymentRequirements.payTo.
  std::string_view pay_to() const& { return {text_.get() + key_size_, pay_to_size_}; }
  std::string_view pay_to() const&& = delete;
  /// The settle body's JSON text as received, read strictly; read again only to list a
  /// payment-only item. Empty in a settlement made by default.
  std::string_view body() const& { return {text_.get() + key_size_ + pay_to_size_, body_size_}; }
  std::string_view body() const&& = delete;
  /// Of paymentPayload: a repeat of a counted payment is not counted again.
  const payment_id& payment() const { return payment_; }

 private:
  std::shared_ptr<const char[]> text_;  // the key, then the payee, then the body
  std::size_t key_size_ = 0;
  std::size_t pay_to_size_ = 0;
  std::size_t body_size_ = 0;
  payment_id payment_;
};

/// How deeply a settle body may nest: the bazaar extension (32 levels, bazaar_extension.hpp)
/// under paymentPayload.extensions, and headroom.
constexpr std::size_t max_settlement_depth = 64;

/// A settle body as it arrives, JSON text: {"x402Version","paymentPayload","paymentRequirements"},
/// v1 or v2. Read strictly (wire::flat_json: a duplicate key, invalid UTF-8 or nesting past
/// max_settlement_depth is refused, field empty) in one pass that builds no tree, for its payee,
/// its item and its payment; refused (field and reason) when it does not name a payee and a
/// resource. The HTTP handler's way, and an embedding rail node's when it holds the bytes of its
/// own /settle request.
expected<settlement> parse_settlement(std::string_view text);

/// The same for a body an embedding caller built as a tree: written as text, then read as above
/// (one way of reading a settle, and the text is what the settlement keeps).
expected<settlement> derive_settlement(const boost::json::value& body);

/// v1 network names ("base", "base-sepolia", ...) as CAIP-2 ids; a CAIP-2 id is returned as is.
std::string normalise_network(std::string_view network);

/// The fields of an item listed from payments alone: accepts from the server's requirements
/// (checked like a declared entry), the echoed URL, mimeType and bazaar extension checked with
/// the declaration rules, nothing else. Field names in the error are the settle body's.
expected<boost::json::object> payment_only_fields(const settlement& s, const config::rail_terms& terms, bool allow_http);

}  // namespace z402::rules
