#include "z402/wire/json.hpp"

#include "strict_refusal.hpp"

#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/monotonic_resource.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value_stack.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <unordered_set>
#include <vector>

namespace z402::wire {
namespace {

// A SAX handler that tracks the keys of each open object to find duplicates, and refuses numbers
// beyond a double's range: Boost.JSON reads 1e400 as infinity and writes it back as `Infinity`,
// which is not JSON, so one such number stored in an item would break every page that lists it
// and the catalog file's next load (found by the json_strict fuzz target).
struct duplicate_key_finder {
  static constexpr std::size_t max_object_size = std::size_t(-1);
  static constexpr std::size_t max_array_size = std::size_t(-1);
  static constexpr std::size_t max_key_size = std::size_t(-1);
  static constexpr std::size_t max_string_size = std::size_t(-1);

  std::vector<std::unordered_set<std::string>> open_objects;
  std::string key;
  std::string duplicate;
  bool out_of_range = false;

  bool on_document_begin(boost::system::error_code&) { return true; }
  bool on_document_end(boost::system::error_code&) { return true; }
  bool on_array_begin(boost::system::error_code&) { return true; }
  bool on_array_end(std::size_t, boost::system::error_code&) { return true; }
  bool on_object_begin(boost::system::error_code&) {
    open_objects.emplace_back();
    return true;
  }
  bool on_object_end(std::size_t, boost::system::error_code&) {
    open_objects.pop_back();
    return true;
  }
  bool on_string_part(boost::json::string_view, std::size_t, boost::system::error_code&) { return true; }
  bool on_string(boost::json::string_view, std::size_t, boost::system::error_code&) { return true; }
  bool on_key_part(boost::json::string_view s, std::size_t, boost::system::error_code&) {
    key.append(s.data(), s.size());
    return true;
  }
  bool on_key(boost::json::string_view s, std::size_t, boost::system::error_code& ec) {
    key.append(s.data(), s.size());
    if (!open_objects.back().insert(key).second) {
      duplicate = key;
      ec = boost::json::error::syntax;
      return false;
    }
    key.clear();
    return true;
  }
  bool on_number_part(boost::json::string_view, boost::system::error_code&) { return true; }
  bool on_int64(std::int64_t, boost::json::string_view, boost::system::error_code&) { return true; }
  bool on_uint64(std::uint64_t, boost::json::string_view, boost::system::error_code&) { return true; }
  bool on_double(double d, boost::json::string_view, boost::system::error_code& ec) {
    if (std::isfinite(d)) return true;
    out_of_range = true;
    ec = boost::json::error::syntax;
    return false;
  }
  bool on_bool(bool, boost::system::error_code&) { return true; }
  bool on_null(boost::system::error_code&) { return true; }
  bool on_comment_part(boost::json::string_view, boost::system::error_code&) { return true; }
  bool on_comment(boost::json::string_view, boost::system::error_code&) { return true; }
};

// Builds the value in the same pass that reads the text (Boost's own DOM handler, plus a count
// of every key read and a note of any number beyond a double's range). Boost 1.81's value_stack
// keeps the last of two duplicate keys, so a document that repeated a key holds fewer keys than
// were read: the one check a clean document pays for is a walk of the tree it already built,
// not a second parse of its text (settles over HTTP parse each body once).
struct counting_builder {
  static constexpr std::size_t max_object_size = boost::json::object::max_size();
  static constexpr std::size_t max_array_size = boost::json::array::max_size();
  static constexpr std::size_t max_key_size = boost::json::string::max_size();
  static constexpr std::size_t max_string_size = boost::json::string::max_size();

  boost::json::value_stack st;
  std::size_t keys_read = 0;
  bool out_of_range = false;

  /// The stack works in `buffer` (then the default resource); the value it builds lives in `result`.
  counting_builder(boost::json::storage_ptr result, unsigned char* buffer, std::size_t size) : st({}, buffer, size) {
    st.reset(std::move(result));
  }

  bool on_document_begin(boost::system::error_code&) { return true; }
  bool on_document_end(boost::system::error_code&) { return true; }
  bool on_object_begin(boost::system::error_code&) { return true; }
  bool on_object_end(std::size_t n, boost::system::error_code&) {
    st.push_object(n);
    return true;
  }
  bool on_array_begin(boost::system::error_code&) { return true; }
  bool on_array_end(std::size_t n, boost::system::error_code&) {
    st.push_array(n);
    return true;
  }
  bool on_key_part(boost::json::string_view s, std::size_t, boost::system::error_code&) {
    st.push_chars(s);
    return true;
  }
  bool on_key(boost::json::string_view s, std::size_t, boost::system::error_code&) {
    ++keys_read;
    st.push_key(s);
    return true;
  }
  bool on_string_part(boost::json::string_view s, std::size_t, boost::system::error_code&) {
    st.push_chars(s);
    return true;
  }
  bool on_string(boost::json::string_view s, std::size_t, boost::system::error_code&) {
    st.push_string(s);
    return true;
  }
  bool on_number_part(boost::json::string_view, boost::system::error_code&) { return true; }
  bool on_int64(std::int64_t i, boost::json::string_view, boost::system::error_code&) {
    st.push_int64(i);
    return true;
  }
  bool on_uint64(std::uint64_t u, boost::json::string_view, boost::system::error_code&) {
    st.push_uint64(u);
    return true;
  }
  bool on_double(double d, boost::json::string_view, boost::system::error_code&) {
    // Kept and refused after the whole text parsed, so a syntax error later in the text is
    // still the one reported, as it was when the syntax was checked first.
    if (!std::isfinite(d)) out_of_range = true;
    st.push_double(d);
    return true;
  }
  bool on_bool(bool b, boost::system::error_code&) {
    st.push_bool(b);
    return true;
  }
  bool on_null(boost::system::error_code&) {
    st.push_null();
    return true;
  }
  bool on_comment_part(boost::json::string_view, boost::system::error_code&) { return true; }
  bool on_comment(boost::json::string_view, boost::system::error_code&) { return true; }
};

std::size_t keys_held(const boost::json::value& v) {
  std::size_t n = 0;
  if (auto* arr = v.if_array()) {
    for (auto& e : *arr) n += keys_held(e);
  } else if (auto* obj = v.if_object()) {
    n = obj->size();
    for (auto& kv : *obj) n += keys_held(kv.value());
  }
  return n;
}

}  // namespace

boost::json::parse_options strict_options(std::size_t max_depth) {
  boost::json::parse_options options;
  options.max_depth = max_depth;
  return options;
}

error strict_refusal(std::string_view text, std::size_t max_depth, boost::system::error_code ec) {
  if (ec)
    return refused("", ec == boost::json::error::too_deep ? "the body nests deeper than " + std::to_string(max_depth) + " levels"
                                                       : "the body is not valid JSON (" + ec.message() + ")");
  // The text parsed: a key was repeated or a number is out of range. The finder names the first.
  boost::json::basic_parser<duplicate_key_finder> finder{strict_options(max_depth)};
  finder.write_some(false, text.data(), text.size(), ec);
  return refused("", finder.handler().out_of_range ? std::string{"the body has a number beyond the range of a double"}
                                                   : "the body repeats the key \"" + finder.handler().duplicate + "\" in one object");
}

namespace {

// parse_strict with the value's tree in `storage`.
expected<boost::json::value> parse_strict_into(std::string_view text, std::size_t max_depth, boost::json::storage_ptr storage) {
  boost::system::error_code ec;
  unsigned char stack_buffer[BOOST_JSON_STACK_BUFFER_SIZE];
  boost::json::basic_parser<counting_builder> parser{strict_options(max_depth), std::move(storage), stack_buffer, sizeof stack_buffer};
  auto read = parser.write_some(false, text.data(), text.size(), ec);
  if (!ec && read < text.size()) ec = boost::json::error::extra_data;
  if (ec) return strict_refusal(text, max_depth, ec);
  auto value = parser.handler().st.release();
  if (!parser.handler().out_of_range && keys_held(value) == parser.handler().keys_read) return value;
  return strict_refusal(text, max_depth, {});
}

// A value and the arena its tree lives in: the arena is declared first, so it outlives the
// value, and the value starts in it, so a value moved in from the same arena is not copied.
struct arena_document {
  explicit arena_document(std::size_t first_block) : arena(first_block), value(boost::json::storage_ptr(&arena)) {}
  boost::json::monotonic_resource arena;
  boost::json::value value;
};

}  // namespace

expected<boost::json::value> parse_strict(std::string_view text, std::size_t max_depth) {
  return parse_strict_into(text, max_depth, {});
}

expected<json_document> parse_strict_document(std::string_view text, std::size_t max_depth) {
  // A tree takes about twice its text (values, keys, strings): one block of that holds it all.
  auto doc = std::make_shared<arena_document>(2 * text.size() + 256);
  auto value = parse_strict_into(text, max_depth, boost::json::storage_ptr{&doc->arena});
  if (!value) return value.error();
  doc->value = std::move(*value);
  return json_document{doc, &doc->value};
}

expected<boost::json::value> parse_for_display(std::string_view text, std::size_t max_depth) {
  boost::json::parse_options options;
  options.max_depth = max_depth;
  options.allow_invalid_utf8 = true;
  boost::system::error_code ec;
  auto value = boost::json::parse(boost::json::string_view{text.data(), text.size()}, ec, {}, options);
  if (!ec) return value;
  return refused("", ec == boost::json::error::too_deep ? "it nests deeper than " + std::to_string(max_depth) + " levels" : ec.message());
}

std::size_t json_depth(const boost::json::value& v) {
  std::size_t deepest = 0;
  if (auto* arr = v.if_array()) {
    for (auto& e : *arr) deepest = std::max(deepest, json_depth(e));
    return deepest + 1;
  }
  if (auto* obj = v.if_object()) {
    for (auto& kv : *obj) deepest = std::max(deepest, json_depth(kv.value()));
    return deepest + 1;
  }
  return 0;
}

const boost::json::value* find_path(const boost::json::object& root, std::initializer_list<std::string_view> path) {
  const boost::json::value* v = nullptr;
  const boost::json::object* o = &root;
  for (auto key : path) {
    if (!o) return nullptr;
    v = o->if_contains(boost::json::string_view{key.data(), key.size()});
    if (!v) return nullptr;
    o = v->if_object();
  }
  return v;
}

const boost::json::string* find_string(const boost::json::object& obj, std::string_view key) {
  auto* v = obj.if_contains(boost::json::string_view{key.data(), key.size()});
  return v ? v->if_string() : nullptr;
}

}  // namespace z402::wire
