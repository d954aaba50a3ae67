// The strict JSON parser every untrusted body goes through (wire/json.hpp), the flat reader a
// settle body goes through (wire/flat_json.hpp), and the lenient parser the agent shows a
// foreign catalog with.
#include "target.hpp"

#include "wire/flat_json.hpp"
#include "z402/wire/json.hpp"

#include <boost/json.hpp>

#include <cmath>

namespace {

/// Equal values, doubles within a few units in the last place: Boost 1.81 reads decimal
/// numbers with a fast algorithm that can be 1 ulp off, so a double written with 17 digits
/// may come back as its neighbour (e.g. 18446744073709556854775809). Nothing else may change.
bool same(const boost::json::value& a, const boost::json::value& b) {
  if (a.is_double() && b.is_double()) {
    auto x = a.get_double(), y = b.get_double();
    return x == y || std::abs(x - y) <= 1e-15 * std::max(std::abs(x), std::abs(y));
  }
  if (a.kind() != b.kind()) return false;
  if (auto* arr = a.if_array()) {
    auto& other = b.get_array();
    if (arr->size() != other.size()) return false;
    for (std::size_t i = 0; i < arr->size(); ++i)
      if (!same((*arr)[i], other[i])) return false;
    return true;
  }
  if (auto* obj = a.if_object()) {
    auto& other = b.get_object();
    if (obj->size() != other.size()) return false;
    for (auto& kv : *obj) {
      auto* v = other.if_contains(kv.key());
      if (!v || !same(kv.value(), *v)) return false;
    }
    return true;
  }
  return a == b;
}

}  // namespace

Z402_FUZZ_TARGET(json_strict) {
  using namespace z402;
  auto text = fuzz::text_of(data, size);
  auto doc = wire::parse_strict(text, 64);
  // Against Boost's own DOM parser (which keeps the last of duplicate keys): what it refuses is
  // refused, and what is accepted is the value it builds. parse_strict builds the value in the
  // same pass that reads the text, with a handler of its own.
  boost::json::parse_options options;
  options.max_depth = 64;
  boost::system::error_code ec;
  auto reference = boost::json::parse(boost::json::string_view{text.data(), text.size()}, ec, {}, options);
  fuzz::require(!ec || !doc, "what Boost's parser refuses, the strict parser refuses");
  fuzz::require(!doc || same(*doc, reference), "an accepted document is the value Boost's parser builds");
  if (doc) {
    // What it accepts is one well-formed document: its own serialisation is accepted again,
    // and is the same value.
    auto again = wire::parse_strict(boost::json::serialize(*doc), 64);
    fuzz::require(again && same(*again, *doc), "an accepted document re-parses to the same value");
  } else {
    fuzz::require(doc.error().code == errc::invalid_request && !doc.error().reason.empty(), "a refused document says why");
  }
  // The flat reader takes exactly what the strict parser takes, holds the same value with its
  // keys in the text's order, and refuses the rest with the same reason. One reader for every
  // input, as each thread of the settle path keeps one.
  static wire::flat_json flat;
  auto read = flat.read(text, 64);
  fuzz::require(read.has_value() == doc.has_value(), "the flat reader takes what the strict parser takes");
  if (doc) {
    fuzz::require(boost::json::serialize(flat.to_value(wire::flat_json::root)) == boost::json::serialize(*doc),
                  "the flat reader holds the strict parser's value, keys in the same order");
    // Its canonical text (what names a payment) is the same value too.
    std::string text_of_payment;
    flat.write_canonical(wire::flat_json::root, text_of_payment);
    auto canonical = wire::parse_strict(text_of_payment, 64);
    fuzz::require(canonical && same(*canonical, *doc), "a canonical text re-parses to the same value");
  } else {
    fuzz::require(read.error().reason == doc.error().reason, "the flat reader refuses with the strict parser's reason");
  }
  auto shown = wire::parse_for_display(text, 64);
  fuzz::require(!doc || shown, "whatever the strict parser accepts can be shown");
  return 0;
}
