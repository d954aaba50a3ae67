#pragma once
// How every text that a person or an agent reads shows a price: the
// amount in the asset's atomic unit with the billing unit, and, for an asset whose atomic unit
// the rail defines, the exact value in whole coins beside it. x402 amounts are atomic units, so
// an amount written beside a whole-coin symbol ("1000 ZEC" for 1,000 zatoshi) overstates the
// price by the asset's scale; this is the one function that turns an amount into words.
#include <string>
#include <string_view>

namespace z402::rules {

/// `amount` (a decimal string of atomic units, as an accepts entry carries it), `asset` (the
/// entry's asset) and `unit` (extensions.z402.unit; empty: "call"):
///   price_label("1000", "ZEC", "1k chars") == "1000 zat/1k chars (0.00001 ZEC)"
///   price_label("5", "0x833589fC", "")     == "5 atomic units of 0x833589fC/call"
/// An amount that is not a decimal number is shown as given with no whole-coin value; an empty
/// one as "?". The caller makes the texts terminal-safe when they came from outside.
std::string price_label(std::string_view amount, std::string_view asset, std::string_view unit);

/// The exact decimal value of `atomic` (decimal digits) divided by 10^decimals, with no
/// trailing zeros: whole_coins("1000", 8) == "0.00001", whole_coins("250000000", 8) == "2.5".
std::string whole_coins(std::string_view atomic, unsigned decimals);

}  // namespace z402::rules
