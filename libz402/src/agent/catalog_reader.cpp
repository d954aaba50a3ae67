#include "z402/agent/catalog_reader.hpp"

#include "z402/wire/json.hpp"
#include "wire/url.hpp"

#include <boost/json.hpp>

#include <unordered_set>

namespace z402::agent {
namespace {

namespace json = boost::json;

constexpr std::size_t max_json_depth = 64;

std::string page_url(std::string_view base, std::size_t limit, std::size_t offset) {
  return http::endpoint_url(base, "/discovery/resources?limit=" + std::to_string(limit) + "&offset=" + std::to_string(offset));
}

/// One item's identity in the list, to drop the repeats of a server that repeats pages.
std::string identity_of(const json::object& item) {
  std::string key = json::serialize(item.contains("resource") ? item.at("resource") : json::value{});
  if (auto* ext = item.if_contains("extensions"); ext && ext->is_object())
    if (auto* b = ext->get_object().if_contains("bazaar"); b && b->is_object())
      if (auto* info = b->get_object().if_contains("info"); info && info->is_object())
        if (auto* input = info->get_object().if_contains("input"))
          key += json::serialize(*input);
  if (auto* accepts = item.if_contains("accepts")) key += json::serialize(*accepts);
  return key;
}

std::string failure_text(const error& e) {
  switch (e.code) {
    case errc::timed_out: return "the 60 s deadline passed: " + e.reason;
    case errc::body_too_large: return "the 32 MiB budget ran out: " + e.reason;
    default: return e.reason;
  }
}

}  // namespace

catalog_page parse_catalog_page(std::string_view body) {
  catalog_page page;
  auto doc = wire::parse_for_display(body, max_json_depth);
  auto* items = doc && doc->is_object() ? doc->get_object().if_contains("items") : nullptr;
  if (!items || !items->is_array()) {
    page.error = "the answer is not a catalog page (malformed JSON" + (doc ? std::string{")"} : ": " + doc.error().reason + ")");
    return page;
  }
  page.entries = std::move(items->get_array());
  auto* pagination = doc->get_object().if_contains("pagination");
  auto* total = pagination && pagination->is_object() ? pagination->get_object().if_contains("total") : nullptr;
  if (total && total->is_number()) page.total = total->to_number<double>();
  return page;
}

catalog_read read_catalog(http::client& client, const std::string& discovery_url, const read_limits& limits) {
  catalog_read out;
  auto deadline = std::chrono::steady_clock::now() + limits.deadline;
  std::size_t budget = limits.budget;
  std::unordered_set<std::string> seen;
  std::size_t received = 0;  // items the server gave, repeats included: our next offset
  while (true) {
    if (out.pages >= limits.max_pages || out.items.size() >= limits.max_resources) {
      out.capped = true;
      break;
    }
    auto want = std::min(limits.page_size, limits.max_resources - out.items.size());
    http::client_request req;
    req.url = page_url(discovery_url, want, received);
    req.headers = {{"Accept", "application/json"}};
    std::optional<http::client_response> answer;
    for (std::size_t hop = 0; !answer; ++hop) {
      auto before = budget;
      auto result = client.fetch(req, deadline, budget);
      out.bytes += before - budget;
      if (!result) {
        out.error = failure_text(result.error());
        return out;
      }
      auto& res = *result;
      auto status = res.result_int();
      if (status >= 300 && status < 400 && res.find(http::bhttp::field::location) != res.end()) {
        if (hop >= limits.max_redirects) {
          out.error = "too many redirects";
          return out;
        }
        auto location = res[http::bhttp::field::location];
        auto next = wire::same_origin_redirect(req.url, {location.data(), location.size()});
        if (!next) {
          out.error = "the server " + next.error().reason + "; refused";
          return out;
        }
        req.url = *next;
        continue;
      }
      if (status != 200) {
        out.error = "the server answered HTTP " + std::to_string(status);
        return out;
      }
      answer = std::move(res);
    }
    ++out.pages;
    auto page = parse_catalog_page(answer->body());
    if (page.error) {
      out.error = std::move(page.error);
      return out;
    }
    auto& items = page.entries;
    received += items.size();
    for (auto& v : items) {
      if (!v.is_object() || out.items.size() >= limits.max_resources) continue;
      if (seen.insert(identity_of(v.get_object())).second) out.items.push_back(std::move(v.get_object()));
    }
    // Done when the page is empty or the server says we have everything; a lying total only
    // keeps us going until the caps.
    if (items.empty()) break;
    auto& total = page.total;
    if (total && static_cast<double>(received) >= *total) break;
    if (!total && items.size() < want) break;
  }
  return out;
}

}  // namespace z402::agent
