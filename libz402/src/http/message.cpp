#include "z402/http/message.hpp"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

namespace z402::http {

response json_response(unsigned status, std::string body) {
  response res{static_cast<bhttp::status>(status), 11};
  res.set(bhttp::field::content_type, "application/json");
  res.set(bhttp::field::cache_control, "no-store");
  res.body() = std::move(body);
  res.prepare_payload();
  return res;
}

response error_response(unsigned status, std::string_view code, std::string_view message,
                        const boost::json::value* details) {
  boost::json::object body{{"error", code}, {"message", message}};
  if (details) body["details"] = *details;
  return json_response(status, boost::json::serialize(body));
}

}  // namespace z402::http
