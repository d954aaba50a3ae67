#include "routes/signed_catalog.hpp"

#include "routes/read_response.hpp"
#include "z402/core/crypto.hpp"
#include "z402/trust/statements.hpp"
#include "z402/wire/iso_time.hpp"

namespace z402::routes {
namespace {

constexpr std::string_view prefix = "/discovery/catalog/";

http::response note_response(const http::request& req, const std::string& note, std::string etag, std::string_view cache) {
  if (not_modified(req, etag)) return not_modified_response(etag);
  http::response res{http::bhttp::status::ok, 11};
  res.set(http::bhttp::field::content_type, "text/plain; charset=utf-8");
  res.set(http::bhttp::field::etag, etag);
  res.set(http::bhttp::field::cache_control, cache);
  res.body() = note;
  res.prepare_payload();
  return res;
}

/// The bytes (or their gzip), sent from the publication's own string: never copied.
http::response bytes_response(const http::request& req, const catalog::signed_publication_ptr& holder, const catalog::signed_publication& pub) {
  auto etag = "\"" + crypto::hex(pub.sha256) + "\"";
  http::response res{http::bhttp::status::ok, 11};
  if (not_modified(req, etag)) {
    res = not_modified_response(etag);
  } else {
    bool gzip = accepts_gzip(req);
    auto& body = gzip ? *pub.gzip : *pub.bytes;
    res.set(http::bhttp::field::content_type, "application/json");
    if (gzip) res.set(http::bhttp::field::content_encoding, "gzip");
    res.body().pieces.emplace_back(body.data(), body.size());
    res.body().keep_alive = holder;
    res.prepare_payload();
  }
  res.set(http::bhttp::field::etag, etag);
  res.set(http::bhttp::field::vary, "Accept-Encoding");
  res.set(http::bhttp::field::cache_control, "public, max-age=31536000, immutable");
  return res;
}

}  // namespace

http::response signed_catalog_response(const http::request& req, std::string_view path, const catalog::signed_publication_ptr& pub,
                                       std::int64_t now_ms) {
  if (!pub) return http::error_response(404, "not_found", "this catalog is not signed (docs/trust.md)");
  auto name = path.substr(prefix.size());
  if (name == "note" && now_ms > pub->expires_ms)
    return http::error_response(503, "signed_catalog_expired",
                                "the signed catalog expired at " + wire::format_iso_ms(pub->expires_ms) +
                                    ": this node has not had a newer note from its primary since");
  if (name == "note") return note_response(req, pub->note, "\"" + std::to_string(pub->sequence) + "\"", "no-cache");
  if (name == "keys.note")
    return note_response(req, pub->keys_note, "\"" + crypto::sha256_hex(pub->keys_note).substr(0, 32) + "\"", "public, max-age=60");
  for (auto* p = pub.get(); p; p = p->previous.get())
    if (name == trust::catalog_file_name(p->sha256)) return bytes_response(req, pub, *p);
  return http::error_response(404, "not_found", "no signed catalog file by that name: the catalog keeps the newest and the one before");
}

}  // namespace z402::routes
