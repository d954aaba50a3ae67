#include "z402/wire/flat_json.hpp"

#include "strict_refusal.hpp"

#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

namespace z402::wire {
namespace {

// Byte order of two keys (as std::string_view orders them: unsigned bytes), compared inline:
// keys are short and mostly differ in their first byte, where a call to memcmp for each
// comparison cost more than the comparison did (callgrind, z402-bench-engine).
bool key_before(std::string_view a, std::string_view b) {
  auto n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[i]);
  return a.size() < b.size();
}

}  // namespace

// Boost's basic_parser calls this for every token; it appends nodes and text, and notes what
// parse_strict refuses after the syntax (a repeated key, a number beyond a double's range) so a
// syntax error later in the text is still the one reported.
struct flat_json_builder {
  static constexpr std::size_t max_object_size = std::size_t(-1);
  static constexpr std::size_t max_array_size = std::size_t(-1);
  static constexpr std::size_t max_key_size = std::size_t(-1);
  static constexpr std::size_t max_string_size = std::size_t(-1);
  using node = flat_json::node;
  using kind = flat_json::kind;
  using index = flat_json::index;
  using ec_t = boost::system::error_code;

  explicit flat_json_builder(flat_json& into) : doc(into) {}

  flat_json& doc;
  std::size_t string_start = std::string::npos;  // where the string being read began in text_
  bool repeated_key = false;
  bool out_of_range = false;

  index next() const { return static_cast<index>(doc.nodes_.size()); }
  void push_scalar(kind type, std::int64_t i) {
    node n{type, 0, next() + 1, 0, {}};
    n.i = i;
    doc.nodes_.push_back(n);
  }
  void open(kind type) {
    doc.open_.push_back(next());
    doc.nodes_.push_back(node{type, 0, 0, 0, {}});
  }
  node& close(std::size_t size) {
    auto& n = doc.nodes_[doc.open_.back()];
    doc.open_.pop_back();
    n.size = static_cast<std::uint32_t>(size);
    n.end = next();
    return n;
  }
  void append(boost::json::string_view part) {
    if (string_start == std::string::npos) string_start = doc.text_.size();
    doc.text_.append(part.data(), part.size());
  }
  void finish_string(boost::json::string_view last) {
    append(last);
    doc.nodes_.push_back(node{kind::string, static_cast<std::uint32_t>(doc.text_.size() - string_start), next() + 1,
                              static_cast<std::uint32_t>(string_start), {}});
    string_start = std::string::npos;
  }

  bool on_document_begin(ec_t&) { return true; }
  bool on_document_end(ec_t&) { return true; }
  bool on_object_begin(ec_t&) {
    open(kind::object);
    return true;
  }
  // The object's keys, sorted once here: for the duplicate check (neighbours), member()'s binary
  // search and the canonical text's order.
  bool on_object_end(std::size_t size, ec_t&) {
    auto object = doc.open_.back();
    auto& n = close(size);
    n.at = static_cast<std::uint32_t>(doc.sorted_keys_.size());
    for (index key = object + 1; key < n.end; key = doc.nodes_[key + 1].end) doc.sorted_keys_.push_back(key);
    auto first = doc.sorted_keys_.begin() + n.at;
    auto by_key = [this](index a, index b) { return key_before(doc.text_of(doc.nodes_[a]), doc.text_of(doc.nodes_[b])); };
    std::sort(first, doc.sorted_keys_.end(), by_key);
    // Sorted, a key is the next one's equal unless it comes before it.
    auto same_key = [&](index a, index b) { return !by_key(a, b); };
    if (std::adjacent_find(first, doc.sorted_keys_.end(), same_key) != doc.sorted_keys_.end()) repeated_key = true;
    return true;
  }
  bool on_array_begin(ec_t&) {
    open(kind::array);
    return true;
  }
  bool on_array_end(std::size_t size, ec_t&) {
    close(size);
    return true;
  }
  bool on_key_part(boost::json::string_view s, std::size_t, ec_t&) {
    append(s);
    return true;
  }
  bool on_key(boost::json::string_view s, std::size_t, ec_t&) {
    finish_string(s);
    return true;
  }
  bool on_string_part(boost::json::string_view s, std::size_t, ec_t&) {
    append(s);
    return true;
  }
  bool on_string(boost::json::string_view s, std::size_t, ec_t&) {
    finish_string(s);
    return true;
  }
  bool on_number_part(boost::json::string_view, ec_t&) { return true; }
  bool on_int64(std::int64_t i, boost::json::string_view, ec_t&) {
    push_scalar(kind::int64, i);
    return true;
  }
  bool on_uint64(std::uint64_t u, boost::json::string_view, ec_t&) {
    push_scalar(kind::uint64, 0);
    doc.nodes_.back().u = u;
    return true;
  }
  bool on_double(double d, boost::json::string_view, ec_t&) {
    if (!std::isfinite(d)) out_of_range = true;
    push_scalar(kind::double_, 0);
    doc.nodes_.back().d = d;
    return true;
  }
  bool on_bool(bool b, ec_t&) {
    push_scalar(kind::boolean, b ? 1 : 0);
    return true;
  }
  bool on_null(ec_t&) {
    push_scalar(kind::null, 0);
    return true;
  }
  bool on_comment_part(boost::json::string_view, ec_t&) { return true; }
  bool on_comment(boost::json::string_view, ec_t&) { return true; }
};

namespace {

constexpr bool plain_in_string(unsigned char c) { return c >= 0x20 && c != '"' && c != '\\'; }

// Whether any of the eight bytes of `word` must be escaped (below 0x20, '"' or '\\'). The tests
// are exact for "any byte" though not for which one ("Bit Twiddling Hacks": haszero, hasless).
constexpr bool word_needs_escape(std::uint64_t word) {
  constexpr std::uint64_t ones = ~std::uint64_t{0} / 255;
  constexpr std::uint64_t highs = ones * 0x80;
  auto has_below = [](std::uint64_t x, std::uint64_t n) { return ((x - ones * n) & ~x & highs) != 0; };
  return has_below(word, 0x20) || has_below(word ^ (ones * '"'), 1) || has_below(word ^ (ones * '\\'), 1);
}

// The first byte at or after `at` that must be escaped, or `end`: eight bytes a step until a
// word holds one, then byte by byte within it.
const char* next_escape(const char* at, const char* end) {
  for (; end - at >= 8; at += 8) {
    std::uint64_t word;
    std::memcpy(&word, at, sizeof word);
    if (word_needs_escape(word)) break;
  }
  while (at != end && plain_in_string(static_cast<unsigned char>(*at))) ++at;
  return at;
}

// Plain runs are found a word at a time and appended whole: a payment's text is nearly all plain
// (addresses, signatures, nonces), and appending it a byte at a time took 1,680 of the 8,500
// instructions that name a payment (callgrind, z402-bench-engine); now 1,075.
void write_canonical_string(std::string_view text, std::string& out) {
  static constexpr char hex[] = "0123456789abcdef";
  out += '"';
  const char* at = text.data();
  const char* const end = at + text.size();
  while (at != end) {
    const char* run = at;
    at = next_escape(at, end);
    out.append(run, at);
    if (at == end) break;
    auto c = static_cast<unsigned char>(*at++);
    if (c == '"' || c == '\\') {
      const char escaped[2] = {'\\', static_cast<char>(c)};
      out.append(escaped, 2);
    } else {
      const char escaped[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
      out.append(escaped, 6);
    }
  }
  out += '"';
}

template <class Int>
void write_integer(Int n, std::string& out) {
  char digits[24];
  auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
  out.append(digits, end);
}

}  // namespace

expected<void> flat_json::read(std::string_view text, std::size_t max_depth) {
  nodes_.clear();
  text_.clear();
  sorted_keys_.clear();
  open_.clear();
  boost::system::error_code ec;
  boost::json::basic_parser<flat_json_builder> parser{strict_options(max_depth), *this};
  auto read = parser.write_some(false, text.data(), text.size(), ec);
  if (!ec && read < text.size()) ec = boost::json::error::extra_data;
  if (ec || parser.handler().repeated_key || parser.handler().out_of_range) {
    nodes_.clear();
    return strict_refusal(text, max_depth, ec);
  }
  return {};
}

bool flat_json::is_object(index at) const { return at < nodes_.size() && nodes_[at].type == kind::object; }

flat_json::index flat_json::member(index at, std::string_view key) const {
  if (!is_object(at)) return absent;
  auto first = sorted_keys_.begin() + nodes_[at].at;
  auto last = first + nodes_[at].size;
  auto found = std::lower_bound(first, last, key, [this](index k, std::string_view key) { return key_before(text_of(nodes_[k]), key); });
  return found != last && !key_before(key, text_of(nodes_[*found])) ? *found + 1 : absent;
}

std::optional<std::string_view> flat_json::string_at(index at) const {
  if (at >= nodes_.size() || nodes_[at].type != kind::string) return std::nullopt;
  return text_of(nodes_[at]);
}

std::optional<std::int64_t> flat_json::int64_at(index at) const {
  if (at >= nodes_.size() || nodes_[at].type != kind::int64) return std::nullopt;
  return nodes_[at].i;
}

void flat_json::write_canonical(index at, std::string& out) const {
  auto& n = nodes_[at];
  switch (n.type) {
    case kind::object: {
      out += '{';
      for (std::uint32_t k = 0; k < n.size; ++k) {
        if (k) out += ',';
        auto key = sorted_keys_[n.at + k];
        write_canonical_string(text_of(nodes_[key]), out);
        out += ':';
        write_canonical(key + 1, out);
      }
      out += '}';
      break;
    }
    case kind::array: {
      out += '[';
      for (index e = at + 1; e < n.end; e = nodes_[e].end) {
        if (e != at + 1) out += ',';
        write_canonical(e, out);
      }
      out += ']';
      break;
    }
    case kind::string: write_canonical_string(text_of(n), out); break;
    case kind::int64: write_integer(n.i, out); break;
    case kind::uint64: write_integer(n.u, out); break;
    case kind::boolean: out += n.i ? "true" : "false"; break;
    case kind::null: out += "null"; break;
    case kind::double_: out += boost::json::serialize(boost::json::value(n.d)); break;  // Boost's shortest round trip
  }
}

boost::json::value flat_json::to_value(index at) const {
  auto& n = nodes_[at];
  switch (n.type) {
    case kind::object: {
      boost::json::object o;
      o.reserve(n.size);
      for (index key = at + 1; key < n.end; key = nodes_[key + 1].end) {
        auto k = text_of(nodes_[key]);
        o.emplace(boost::json::string_view{k.data(), k.size()}, to_value(key + 1));
      }
      return o;
    }
    case kind::array: {
      boost::json::array a;
      a.reserve(n.size);
      for (index e = at + 1; e < n.end; e = nodes_[e].end) a.push_back(to_value(e));
      return a;
    }
    case kind::string: return boost::json::string{boost::json::string_view{text_.data() + n.at, n.size}};
    case kind::int64: return n.i;
    case kind::uint64: return n.u;
    case kind::double_: return n.d;
    case kind::boolean: return n.i != 0;
    case kind::null: return nullptr;
  }
  return nullptr;
}

}  // namespace z402::wire
