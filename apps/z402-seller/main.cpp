// z402-seller: tools for a seller. `check` says, from the seller's own machine, why a route is
// or is not listed in a z402 Bazaar.
//   exit 0: listed and matching its 402; 1: not listed or differing; 2: usage; 3: the route
//   or the catalog could not be read.
#include "../common/cli.hpp"
#include "z402/core/wall_clock.hpp"
#include "z402/seller/route_check.hpp"

#include <iostream>

namespace {

using namespace z402;
namespace po = boost::program_options;

constexpr const char* commands_text =
    "usage: z402-seller check URL --discovery CATALOG [OPTIONS]\n"
    "\n"
    "Tools for a seller of paid x402 routes. check answers --help; --version prints the version.\n";

int check(const std::vector<std::string>& args) {
  seller::check_request req;
  cli::command cmd{"z402-seller check", "URL --discovery CATALOG [OPTIONS]",
                   "Says why a route is or is not listed. From this machine (the catalog never fetches your URL) it\n"
                   "asks the route unpaid for its 402, checks every accepts entry against the catalog's terms, runs\n"
                   "the catalog's own rules on the item a declaration of that 402 carries, then compares the listing\n"
                   "with the 402: payTo, price, description, schema, liveness and provenance. One line per check.\n"
                   "Exit 0 listed and matching, 1 not listed or differing, 2 usage, 3 route or catalog unreadable."};
  std::string method;
  cli::catalog_options(cmd, req.discovery);
  cmd.options.add_options()                                                                                  //
      ("method", po::value(&method)->value_name("VERB"), "the route's method (default GET, POST with --data)")  //
      ("data", po::value(&req.body)->value_name("JSON"), "a JSON body for the unpaid request")                //
      ("tool", po::value(&req.tool)->value_name("NAME"), "an MCP tool's name: look the listing up by it")       //
      ("json", "print JSON instead of text");
  cmd.operands.add_options()("url", po::value(&req.url)->required(), "the route");
  cmd.positional.add("url", 1);
  po::variables_map vm;
  if (auto stop = cli::parse(cmd, args, vm)) return *stop;
  if (!req.url.starts_with("http://") && !req.url.starts_with("https://"))
    return cli::usage_error(cmd, "URL must be an http:// or https:// URL");
  req.method = !method.empty() ? method : req.body.empty() ? "GET" : "POST";
  if (http::bhttp::string_to_verb(req.method) == http::bhttp::verb::unknown)
    return cli::usage_error(cmd, "--method: unknown method " + method);
  http::client client{!vm.count("insecure")};
  auto report = seller::check_route(client, req, system_wall_clock{}.now_ms());
  std::cout << (vm.count("json") ? seller::render_json(report) : seller::render_text(report));
  return report.exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args{argv + 1, argv + argc};
  if (args.empty()) return std::cerr << "z402-seller: no command (see z402-seller --help)\n", 2;
  if (args[0] == "--help" || args[0] == "-h") return std::cout << commands_text, 0;
  if (args[0] == "--version") return cli::print_version("z402-seller");
  if (args[0] == "check") return check({args.begin() + 1, args.end()});
  return std::cerr << "z402-seller: unknown command '" << args[0] << "' (see z402-seller --help)\n", 2;
}
