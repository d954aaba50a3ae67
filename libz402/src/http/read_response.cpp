#include "z402/http/read_response.hpp"


namespace z402::http {
namespace {

std::string_view header_value(const request& req, bhttp::field f) {
  auto it = req.find(f);
  return it == req.end() ? std::string_view{} : std::string_view{it->value().data(), it->value().size()};
}

std::string_view trim(std::string_view s) {
  auto b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

}  // namespace

std::string etag_of(const catalog::snapshot& snap, std::string_view target) {
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a over the request target
  for (unsigned char c : target) h = (h ^ c) * 1099511628211ull;
  char buf[64];
  std::snprintf(buf, sizeof buf, "\"%llx-%llx-%016llx\"", static_cast<unsigned long long>(snap.epoch),
                static_cast<unsigned long long>(snap.version), static_cast<unsigned long long>(h));
  return buf;
}

bool not_modified(const request& req, std::string_view etag) {
  auto v = header_value(req, bhttp::field::if_none_match);
  while (!v.empty()) {
    auto comma = v.find(',');
    auto tag = trim(v.substr(0, comma));
    if (tag.substr(0, 2) == "W/") tag = tag.substr(2);
    if (tag == etag || tag == "*") return true;
    v = comma == std::string_view::npos ? std::string_view{} : v.substr(comma + 1);
  }
  return false;
}

bool accepts_gzip(const request& req) {
  auto v = header_value(req, bhttp::field::accept_encoding);
  while (!v.empty()) {
    auto comma = v.find(',');
    auto item = trim(v.substr(0, comma));
    auto semi = item.find(';');
    auto coding = trim(item.substr(0, semi));
    auto params = semi == std::string_view::npos ? std::string_view{} : item.substr(semi + 1);
    bool refused = trim(params) == "q=0" || trim(params) == "q=0.0" || trim(params) == "q=0.000";
    if ((coding == "gzip" || coding == "x-gzip") && !refused) return true;
    v = comma == std::string_view::npos ? std::string_view{} : v.substr(comma + 1);
  }
  return false;
}

response not_modified_response(std::string_view etag) {
  response res{bhttp::status::not_modified, 11};
  res.set(bhttp::field::etag, etag);
  res.set(bhttp::field::cache_control, "no-cache");
  res.set(bhttp::field::vary, "Accept-Encoding");
  return res;
}

response read_response(const request& req, std::string_view etag, response_text body, gzip_cache& cache) {
  response res{bhttp::status::ok, 11};
  res.set(bhttp::field::content_type, "application/json");
  res.set(bhttp::field::cache_control, "no-cache");
  res.set(bhttp::field::etag, etag);
  res.set(bhttp::field::vary, "Accept-Encoding");
  // The cached bytes go out as one gathered piece, kept alive by the answer: no copy. While
  // another reader compresses this page, the page goes out as it is.
  auto compressed = body.payload_size() > gzip_threshold && accepts_gzip(req) ? cache.get(etag, body) : nullptr;
  if (compressed) {
    res.set(bhttp::field::content_encoding, "gzip");
    res.body().pieces.emplace_back(compressed->body.data(), compressed->body.size());
    res.body().keep_alive = std::move(compressed);
  } else {
    res.body() = std::move(body);
  }
  res.prepare_payload();
  return res;
}

}  // namespace z402::http
