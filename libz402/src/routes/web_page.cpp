#include "routes/web_page.hpp"

#include "routes/read_response.hpp"
#include "routes/web_assets.hpp"

namespace z402::routes {
namespace {

constexpr std::string_view assets_prefix = "/assets/";
constexpr std::string_view page_asset = "services.html";

void secure(http::response& res) {
  res.set("Content-Security-Policy", content_security_policy);
  res.set("X-Content-Type-Options", "nosniff");
  res.set("Referrer-Policy", "no-referrer");
  res.set("X-Frame-Options", "DENY");
}

const web_asset* asset_at(std::string_view path) {
  if (path == "/" || path == "/services") return find_web_asset(page_asset);
  if (!path.starts_with(assets_prefix)) return nullptr;
  auto name = path.substr(assets_prefix.size());
  return name == page_asset ? nullptr : find_web_asset(name);
}

}  // namespace

bool is_web_path(std::string_view path) { return path == "/" || path == "/services" || path.starts_with(assets_prefix); }

http::response web_response(const http::request& req, std::string_view path) {
  auto* asset = asset_at(path);
  if (!asset) {
    auto res = http::error_response(404, "not_found", "no such page");
    secure(res);
    return res;
  }
  if (not_modified(req, asset->etag)) {
    auto res = not_modified_response(asset->etag);
    secure(res);
    return res;
  }
  http::response res{http::bhttp::status::ok, 11};
  res.set(http::bhttp::field::content_type, asset->content_type);
  res.set(http::bhttp::field::etag, asset->etag);
  res.set(http::bhttp::field::cache_control, "no-cache");
  secure(res);
  res.body() = std::string{asset->body};
  res.prepare_payload();
  return res;
}

}  // namespace z402::routes
