#include "z402/error.hpp"

namespace z402 {

std::string_view to_string(errc code) {
  switch (code) {
    case errc::invalid_request: return "invalid_request";
    case errc::invalid_filter: return "invalid_filter";
    case errc::invalid_cursor: return "invalid_cursor";
    case errc::query_required: return "query_required";
    case errc::bad_request: return "bad_request";
    case errc::unauthorized: return "unauthorized";
    case errc::forbidden: return "forbidden";
    case errc::not_found: return "not_found";
    case errc::method_not_allowed: return "method_not_allowed";
    case errc::body_too_large: return "body_too_large";
    case errc::unsupported_media_type: return "unsupported_media_type";
    case errc::headers_too_large: return "headers_too_large";
    case errc::catalog_full: return "catalog_full";
    case errc::overloaded: return "overloaded";
    case errc::unavailable: return "unavailable";
    case errc::io_error: return "io_error";
    case errc::corrupt: return "corrupt";
    case errc::timed_out: return "timed_out";
  }
  return "unavailable";
}

unsigned http_status(errc code) {
  switch (code) {
    case errc::invalid_request:
    case errc::invalid_filter:
    case errc::invalid_cursor:
    case errc::query_required:
    case errc::bad_request:
    case errc::catalog_full: return 400;
    case errc::unauthorized: return 401;
    case errc::forbidden: return 403;
    case errc::not_found: return 404;
    case errc::method_not_allowed: return 405;
    case errc::body_too_large: return 413;
    case errc::unsupported_media_type: return 415;
    case errc::headers_too_large: return 431;
    case errc::overloaded:
    case errc::unavailable:
    case errc::io_error:
    case errc::corrupt:
    case errc::timed_out: return 503;
  }
  return 503;
}

std::optional<errc> errc_from_string(std::string_view name) {
  for (auto n = static_cast<int>(errc::invalid_request); n <= static_cast<int>(errc::timed_out); ++n)
    if (to_string(static_cast<errc>(n)) == name) return static_cast<errc>(n);
  return std::nullopt;
}

std::string error::message() const {
  std::string where = item ? "items[" + std::to_string(*item) + "]" : std::string{};
  if (!field.empty()) where += where.empty() ? field : "." + field;
  return where.empty() ? reason : where + ": " + reason;
}

}  // namespace z402
