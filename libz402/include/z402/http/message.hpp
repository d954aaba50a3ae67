#pragma once
// The HTTP message types every z402 server uses, and the one JSON error shape they answer with.
#include <boost/beast/http.hpp>
#include <boost/json/value.hpp>

#include <string>
#include <string_view>

namespace z402::http {

namespace bhttp = boost::beast::http;
using request = bhttp::request<bhttp::string_body>;
using request_header = bhttp::request_header<>;
using response = bhttp::response<bhttp::string_body>;

response json_response(unsigned status, std::string body);
/// {"error":code,"message":message[,"details":details]}
response error_response(unsigned status, std::string_view code, std::string_view message,
                        const boost::json::value* details = nullptr);

}  // namespace z402::http
