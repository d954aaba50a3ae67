#pragma once
// DEVELOPMENT ONLY: payments signed with a secret shared between payer and service. It proves
// the kit's loop end to end without a chain; it moves no money and anyone holding the secret
// can pay. The payload is {nonce, signature}: HMAC-SHA256 under the secret over the resource
// URL, the nonce and the accepted terms; each nonce pays once.
#include "z402/kit/verifier.hpp"

#include <mutex>
#include <string>
#include <unordered_set>

namespace z402::kit {

/// The secret both sides use when none is given: development only, and public.
inline constexpr std::string_view default_dev_secret = "z402-development-secret-not-for-production";

class dev_verifier final : public payment_verifier {
 public:
  explicit dev_verifier(std::string secret, std::size_t max_nonces = 1'000'000)
      : secret_(std::move(secret)), max_nonces_(max_nonces) {}
  payment_verdict verify(std::string_view payment_signature, const boost::json::object& payment_required) override;

 private:
  std::string secret_;
  std::size_t max_nonces_;  // memory bound: past it, new payments are refused until restart
  std::mutex mutex_;
  std::unordered_set<std::string> used_;
};

/// The PAYMENT-SIGNATURE header value (base64 PaymentPayload) paying the first accepts entry
/// of `payment_required`, as the payer computes it.
std::string dev_payment_header(std::string_view secret, const boost::json::object& payment_required, std::string_view nonce);

}  // namespace z402::kit
