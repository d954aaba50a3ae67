// POST /discovery/settled: the body a rail node reports, read for its payee and item, and the
// payment-only item it may list.
#include "target.hpp"

#include "z402/rules/settlement.hpp"
#include "z402/wire/json.hpp"

#include <boost/json.hpp>

Z402_FUZZ_TARGET(settle_body) {
  using namespace z402;
  static const auto terms = config::default_rail_terms();
  auto body = wire::parse_strict(fuzz::text_of(data, size), 64);
  if (!body) return 0;
  auto event = rules::derive_settlement(std::move(*body));
  if (!event) {
    fuzz::require(event.error().code == errc::invalid_request && !event.error().reason.empty(),
                  "a refused settle says which rule");
    return 0;
  }
  auto identity = event->identity();
  fuzz::require(!event->pay_to().empty() && !identity.resource.empty(), "a settle names a payee and a resource");
  fuzz::require(event->key() == identity.key(), "the settle's key is its identity's: no part holds the separator");
  for (bool allow_http : {false, true}) {
    auto listed = rules::payment_only_fields(*event, terms, allow_http);
    if (listed) fuzz::require(listed->contains("resource"), "a payment-only item has a resource");
  }
  return 0;
}
