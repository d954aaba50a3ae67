#pragma once
// `z402-seller check`: why a route is or is not listed, seen from the seller's own machine
// (the facilitator never fetches a provider's URL). It asks the route unpaid for its 402,
// checks every accepts entry against the rail's terms (GET /discovery/terms), builds the item
// a declaration from that 402 carries (the kit's builder) and runs the catalog's own rules on
// it, then looks the identity up (GET /discovery/resource) and compares the listing with the
// 402, and whether the route's origin names its payTo in /.well-known/x402 as agents check
// (agent/origin_binding.hpp). Every text that came from the route or the catalog is terminal-safe.
#include "z402/http/client.hpp"

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace z402::seller {

struct check_request {
  std::string url;              // the route
  std::string method = "GET";   // its method (POST when a body is given)
  std::string body;             // a JSON body for the unpaid request
  std::string tool;             // an MCP tool's name: the listing is looked up by it
  std::string discovery;        // the catalog's base URL
  std::chrono::milliseconds deadline{60'000};  // for the whole run
  std::size_t budget = 16u << 20;              // bytes received, every answer together
};

struct check_line {
  std::string name;    // what was checked
  bool ok = false;
  std::string detail;  // what was found (terminal-safe)
  std::string fix;     // what to change, when not ok
};

struct check_report {
  std::vector<check_line> lines;
  /// 0 listed and matching its 402; 1 not listed or differing; 3 the route or the catalog
  /// could not be read.
  int exit_code = 1;
};

check_report check_route(http::client& client, const check_request& req, std::int64_t now_ms);

/// One line per check ("ok   ..." / "FAIL ... -> fix"), then the verdict.
std::string render_text(const check_report& report);
/// The same as one JSON document.
std::string render_json(const check_report& report);

}  // namespace z402::seller
