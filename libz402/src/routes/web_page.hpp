#pragma once
// GET / and /services: the Services page (docs/contract.md §9), and its /assets/. The page reads
// the public list like any client; every answer carries a strict Content-Security-Policy
// (scripts and styles from this origin only, no inline code, no remote origins, no frames).
#include "z402/http/message.hpp"

#include <string_view>

namespace z402::routes {

inline constexpr std::string_view content_security_policy =
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

bool is_web_path(std::string_view path);

/// The page or asset at `path` (200, or 304 on a matching If-None-Match), or 404.
http::response web_response(const http::request& req, std::string_view path);

}  // namespace z402::routes
