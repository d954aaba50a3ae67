#include "z402/http/message.hpp"

#include "z402/http/page_file.hpp"

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

namespace z402::http {

std::uint64_t response_text::payload_size() const {
  if (file) return file->size();
  std::uint64_t n = size() + suffix.size();
  for (auto& p : pieces) n += p.size();
  return n;
}

std::string response_text::flatten() const {
  if (file) return file->read();
  std::string out;
  out.reserve(payload_size());
  out.append(*this);
  for (auto& p : pieces) out.append(static_cast<const char*>(p.data()), p.size());
  return out.append(suffix);
}

void gather_body::writer::init(boost::beast::error_code& ec) {
  ec = {};
  if (body_.file) {  // not the servers' path (they send files themselves): read it whole
    read_ = body_.flatten();
    single_ = boost::asio::const_buffer{read_.data(), read_.size()};
    return;
  }
  single_ = boost::asio::const_buffer{body_.data(), body_.size()};
  if (body_.pieces.empty() && body_.suffix.empty()) return;
  gathered_.reserve(body_.pieces.size() + 2);
  gathered_.push_back(single_);
  gathered_.insert(gathered_.end(), body_.pieces.begin(), body_.pieces.end());
  gathered_.emplace_back(body_.suffix.data(), body_.suffix.size());
}

boost::optional<std::pair<gather_body::writer::const_buffers_type, bool>> gather_body::writer::get(
    boost::beast::error_code& ec) {
  ec = {};
  if (done_) return boost::none;
  done_ = true;
  if (gathered_.empty()) return {{buffers{&single_, &single_ + 1}, false}};
  return {{buffers{gathered_.data(), gathered_.data() + gathered_.size()}, false}};
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
