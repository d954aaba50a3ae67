#include "wire/flat_json.hpp"

#include "byte_words.hpp"
#include "flat_json_builder.hpp"
#include "flat_json_scan.hpp"
#include "strict_refusal.hpp"

#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

namespace z402::wire {
namespace {

// The bytes of `word` that must be escaped: below 0x20, '"' or '\\'.
constexpr std::uint64_t to_escape(std::uint64_t word) {
  using namespace byte_words;
  return below(word, 0x20) | equal(word, '"') | equal(word, '\\');
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
    at = byte_words::first_marked(at, end, to_escape);
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

void flat_json::clear() {
  nodes_.clear();
  text_.clear();
  sorted_keys_.clear();
  open_.clear();
}

expected<void> flat_json::read(std::string_view text, std::size_t max_depth) {
  clear();
  text_.reserve(text.size());
  {
    flat_json_builder common{*this};
    if (scan_common_form(common, text, max_depth)) return {};
  }
  // Not in the common form (or not JSON at all): Boost's tokenizer reads it and gives the verdict.
  clear();
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
    case kind::string: {
      auto text = text_of(n);
      return boost::json::string{boost::json::string_view{text.data(), text.size()}};
    }
    case kind::int64: return n.i;
    case kind::uint64: return n.u;
    case kind::double_: return n.d;
    case kind::boolean: return n.i != 0;
    case kind::null: return nullptr;
  }
  return nullptr;
}

}  // namespace z402::wire
