#pragma once
// GET /discovery/catalog/...: the signed catalog (docs/trust.md §5), as files any mirror can
// copy and serve unchanged:
//   note             the catalog note (revalidated each time: it changes every few seconds)
//   keys.note        the keys note
//   <sha256>.json    the whole catalog's bytes, named by their SHA-256 in hex: immutable, so
//                    cached for a year; the newest and the one before are kept.
#include "z402/catalog/signed_catalog.hpp"
#include "z402/http/message.hpp"

#include <cstdint>
#include <string_view>

namespace z402::routes {

/// The answer for `path` (under /discovery/catalog/) from `pub` (null: not signed here) at
/// `now_ms`. A note past its expiry (a follower cut from its primary for 15 minutes) answers 503
/// signed_catalog_expired: no agent would accept it, and a mirror copying it should not.
http::response signed_catalog_response(const http::request& req, std::string_view path, const catalog::signed_publication_ptr& pub,
                                       std::int64_t now_ms);

}  // namespace z402::routes
