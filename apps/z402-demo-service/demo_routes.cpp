#include "demo_routes.hpp"

#include "routes/list_query.hpp"
#include "z402/core/crypto.hpp"
#include "z402/wire/json.hpp"

#include <boost/json.hpp>

#include <charconv>

namespace z402::demo {
namespace {

namespace json = boost::json;

kit::route_answer bad_input(std::string_view field, std::string_view reason) {
  return {400, json::object{{"error", "invalid_input"}, {"field", field}, {"message", std::string{field} + " " + std::string{reason}}}};
}

/// A made-up but stable price for a ticker: the same symbol always quotes the same.
kit::route_answer quote(const kit::route_call& call) {
  auto params = routes::parse_query(call.query);
  if (!params) return bad_input("query", params.error().reason);
  auto it = params->find("symbol");
  if (it == params->end() || it->second.empty() || it->second.size() > 12) return bad_input("symbol", "must be 1-12 characters");
  for (unsigned char c : it->second)
    if (!std::isalnum(c)) return bad_input("symbol", "must be letters and digits");
  std::string symbol;
  for (unsigned char c : it->second) symbol += static_cast<char>(std::toupper(c));
  auto digest = crypto::sha256_hex(symbol);
  unsigned cents = 0;
  std::from_chars(digest.data(), digest.data() + 6, cents, 16);
  cents %= 1'000'000;
  auto price = std::to_string(cents / 100) + "." + (cents % 100 < 10 ? "0" : "") + std::to_string(cents % 100);
  return {200, json::object{{"symbol", symbol}, {"priceUsd", price}, {"source", "z402 demo"}}};
}

kit::route_answer wordcount(const kit::route_call& call) {
  auto body = wire::parse_strict(call.request.body(), 8);
  if (!body || !body->is_object()) return bad_input("body", "must be a JSON object");
  auto text = wire::find_string(body->get_object(), "text");
  if (!text) return bad_input("text", "must be a string");
  std::size_t words = 0, lines = text->empty() ? 0 : 1;
  bool in_word = false;
  for (unsigned char c : *text) {
    bool space = std::isspace(c);
    if (!space && !in_word) ++words;
    in_word = !space;
    if (c == '\n') ++lines;
  }
  return {200, json::object{{"words", words}, {"characters", text->size()}, {"lines", lines}}};
}

bool is_prime(std::uint64_t n) {
  if (n < 2) return false;
  for (std::uint64_t d = 2; d * d <= n; ++d)
    if (n % d == 0) return false;
  return true;
}

kit::route_answer primes(const kit::route_call& call) {
  auto& raw = call.path_params.at("n").as_string();
  std::uint64_t n = 0;
  auto [end, ec] = std::from_chars(raw.data(), raw.data() + raw.size(), n);
  if (ec != std::errc{} || end != raw.data() + raw.size() || n > 1'000'000'000'000ull)
    return bad_input("n", "must be a whole number from 0 to 1000000000000");
  auto next = n + 1;
  while (!is_prime(next)) ++next;
  return {200, json::object{{"n", n}, {"prime", is_prime(n)}, {"nextPrime", next}}};
}

}  // namespace

std::vector<kit::paid_route> demo_routes() {
  std::vector<kit::paid_route> routes;

  kit::query_route quote_shape;
  quote_shape.params = json::object{{"symbol", "ZEC"}};
  quote_shape.params_schema = json::parse(
      R"({"properties":{"symbol":{"type":"string","description":"Ticker symbol","pattern":"^[A-Za-z0-9]{1,12}$"}},"required":["symbol"]})");
  quote_shape.output = kit::output_spec{json::parse(R"({"symbol":"ZEC","priceUsd":"42.50","source":"z402 demo"})"), std::nullopt};
  routes.push_back({"GET", "/v1/quote", "", "1000", "quote",
                    "Price quote for a ticker symbol (demo data, stable per symbol).", "application/json",
                    std::move(quote_shape), quote});

  kit::body_route count_shape;
  count_shape.body = json::object{{"text", "one two three"}};
  count_shape.body_schema = json::parse(
      R"({"type":"object","properties":{"text":{"type":"string","description":"Text to count"}},"required":["text"]})");
  count_shape.output = kit::output_spec{json::parse(R"({"words":3,"characters":13,"lines":1})"), std::nullopt};
  routes.push_back({"POST", "/v1/wordcount", "", "500", "text",
                    "Counts the words, characters and lines of a text you send as JSON.", "application/json",
                    std::move(count_shape), wordcount});

  kit::query_route prime_shape;
  prime_shape.params = json::object{};
  prime_shape.path_params_schema = json::parse(R"({"properties":{"n":{"type":"string","pattern":"^[0-9]{1,13}$"}},"required":["n"]})");
  prime_shape.output = kit::output_spec{json::parse(R"({"n":97,"prime":true,"nextPrime":101})"), std::nullopt};
  routes.push_back({"GET", "/v1/primes/:n", "/v1/primes/97", "200", "number",
                    "Tells whether a number is prime and gives the next prime after it.", "application/json",
                    std::move(prime_shape), primes});
  return routes;
}

}  // namespace z402::demo
