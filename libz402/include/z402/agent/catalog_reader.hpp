#pragma once
// Reads a whole catalog from GET /discovery/resources, page by page, from an endpoint that
// is not trusted: one deadline and one byte budget for every request together, at most
// max_resources items in at most max_pages pages, redirects followed only within the origin.
// The offsets are ours (what we have received so far), so a server that lies in `pagination`
// (a total that grows forever, repeated pages, offsets going backwards) cannot make it loop.
#include "z402/http/client.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace z402::agent {

struct read_limits {
  std::chrono::milliseconds deadline{60'000};  // for the whole run
  std::size_t budget = 32u << 20;              // bytes received, headers and bodies
  std::size_t max_resources = 1000;
  std::size_t max_pages = 100;
  std::size_t page_size = 100;
  std::size_t max_redirects = 5;  // per page
};

struct catalog_read {
  std::vector<boost::json::object> items;  // distinct items in list order
  std::size_t pages = 0;
  std::size_t bytes = 0;                   // received
  bool capped = false;                     // stopped at max_resources or max_pages
  std::optional<std::string> error;        // set: the catalog could not be read, and why
};

catalog_read read_catalog(http::client& client, const std::string& discovery_url, const read_limits& limits);

/// One answer of GET /discovery/resources as the agent reads it: any bytes an untrusted server
/// sends (parsed for display: kept as bytes, shown through terminal_safe).
struct catalog_page {
  boost::json::array entries;          // the page's `items`, objects or not
  std::optional<double> total;         // pagination.total, when the server gave a number
  std::optional<std::string> error;    // set: not a catalog page, and why
};
catalog_page parse_catalog_page(std::string_view body);

}  // namespace z402::agent
