#pragma once
// The HTTP message types every z402 server uses, and the one JSON error shape they answer with.
#include "z402/error.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/beast/http.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace z402::http {

namespace bhttp = boost::beast::http;
using request = bhttp::request<bhttp::string_body>;
using request_header = bhttp::request_header<>;

/// A response body. Usually just the text it owns (it is a std::string, so every answer is
/// built and read as one). A catalog read instead sends that text, then `pieces` of an
/// immutable snapshot, then `suffix`, in one gather write, and keeps the snapshot alive until
/// written: a page of 100 items (150 KB) is never copied into one buffer.
class response_text : public std::string {
 public:
  using std::string::string;
  using std::string::operator=;
  response_text() = default;
  response_text(std::string s) : std::string(std::move(s)) {}

  std::vector<boost::asio::const_buffer> pieces;
  std::string suffix;
  std::shared_ptr<const void> keep_alive;
  /// When set, the body is the text, then this file's bytes (a page kept in a file,
  /// page_file.hpp), and pieces and suffix are empty: plain TCP sends the text and then the
  /// file with sendfile, TLS encrypts the file from its mapping, anything else copies it whole.
  std::shared_ptr<const class page_file> file;

  std::uint64_t payload_size() const;
  /// The whole body as one string (for gzip, and for readers of a gathered answer).
  std::string flatten() const;
};

/// The Beast body of response_text. It has no writer: the servers write every answer
/// themselves (server.cpp: the header from the fields, then the body's buffers or its file).
struct gather_body {
  using value_type = response_text;
  static std::uint64_t size(const value_type& v) { return v.payload_size(); }
};

using response = bhttp::response<gather_body>;

response json_response(unsigned status, std::string body);
/// {"error":code,"message":message[,"details":details]}
response error_response(unsigned status, std::string_view code, std::string_view message,
                        const boost::json::value* details = nullptr);
/// The same for an error of the model: its status from its code (http_status), its reason as
/// the message.
response error_response(const error& e);

}  // namespace z402::http
