#include "routes/refusal.hpp"

#include <boost/json/object.hpp>

namespace z402::routes {

http::response invalid_request(const z402::error& e, std::string_view message) {
  boost::json::object detail{{"field", e.field}, {"reason", e.reason}};
  if (e.item) detail["item"] = *e.item;
  boost::json::value details = boost::json::array{detail};
  return http::error_response(400, "invalid_request", message, &details);
}

http::response unavailable_write(bool at_follower, std::string_view why) {
  auto res = http::error_response(503, "unavailable", why);
  if (at_follower) res.set(http::bhttp::field::retry_after, "1");
  return res;
}

}  // namespace z402::routes
