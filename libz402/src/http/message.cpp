#include "z402/http/message.hpp"

#include "http/page_file.hpp"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

namespace z402::http {

std::uint64_t response_text::payload_size() const {
  std::uint64_t n = size() + suffix.size();
  if (file) n += file->size();
  for (auto& p : pieces) n += p.size();
  return n;
}

std::string response_text::flatten() const {
  std::string out;
  out.reserve(payload_size());
  out.append(*this);
  if (file) out.append(file->bytes());
  for (auto& p : pieces) out.append(static_cast<const char*>(p.data()), p.size());
  out.append(suffix);
  return out;
}

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

namespace z402::http {

response error_response(const error& e) { return error_response(http_status(e.code), to_string(e.code), e.reason); }

}  // namespace z402::http
