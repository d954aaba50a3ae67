#pragma once
// Checks of single DiscoveryResource fields, shared by declarations and (later) payment echoes.
// Each returns nullopt when the value is valid, or the field and reason when it is not.
#include "z402/config/rail_terms.hpp"
#include "z402/error.hpp"
#include "wire/url.hpp"

#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace z402::rules {

constexpr std::size_t max_url_bytes = 2048;
constexpr std::size_t max_description_chars = 500;
constexpr std::size_t max_short_text = 32;  // serviceName, each tag, billing unit
constexpr std::size_t max_tags = 5;
constexpr std::size_t min_accepts = 1, max_accepts = 4;
constexpr std::int64_t max_timeout_seconds = 3600;

/// `resource`: absolute https URL (http only when `allow_http`), at most 2048 bytes, no
/// userinfo. On success `url` holds its parts.
expected<void> check_resource(const boost::json::value& v, bool allow_http, wire::url_parts& url);

/// One accepts entry: this provider's payTo, exactly the rail's scheme/network/asset/extra,
/// a positive 64-bit decimal amount, maxTimeoutSeconds 1-3600, nothing else.
expected<void> check_accepts_entry(const boost::json::value& v, std::string_view path,
                                               const config::rail_terms& terms, std::string_view pay_to);

/// `amount`: the decimal string of a positive integer that fits in 64 bits, no leading zero.
bool is_positive_u64_decimal(std::string_view s);

/// A count of atomic units as a price ceiling or an amount is written: decimal digits only (no
/// sign, no space), fitting in 64 bits. nullopt otherwise.
std::optional<std::uint64_t> atomic_units(std::string_view s);

expected<void> check_description(const boost::json::value& v);
expected<void> check_mime_type(const boost::json::value& v);
expected<void> check_service_name(const boost::json::value& v);
expected<void> check_tags(const boost::json::value& v);
expected<void> check_icon_url(const boost::json::value& v);
/// extensions.z402: exactly {"unit": 1-32 printable ASCII}.
expected<void> check_z402_extension(const boost::json::value& v);

}  // namespace z402::rules
