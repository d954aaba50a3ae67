#pragma once
// Payment checking is pluggable: a service hands each PAYMENT-SIGNATURE to its verifier along
// with the 402 it would have sent, and serves the call only on a yes. A production verifier
// asks the rail's facilitator (/verify, /settle); the kit ships a development one.
#include <boost/json/object.hpp>

#include <string>
#include <string_view>

namespace z402::kit {

struct payment_verdict {
  bool paid = false;
  std::string reason;              // why not, for the 402's `error` (never echoes the header)
  boost::json::object payload;     // the decoded PaymentPayload when paid
  boost::json::object requirements;  // the accepts entry it paid
};

class payment_verifier {
 public:
  virtual ~payment_verifier() = default;
  /// Called once per paid request; a yes consumes the payment (a replay must get a no).
  virtual payment_verdict verify(std::string_view payment_signature, const boost::json::object& payment_required) = 0;
};

}  // namespace z402::kit
