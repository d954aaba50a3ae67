#include "flat_json_scan.hpp"

#include "byte_words.hpp"
#include "flat_json_builder.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace z402::wire {
namespace {

using kind = flat_json_builder::kind;

constexpr bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// The bytes of `word` that end a plain run in a string: '"', '\\', a control character, or a byte of
// a multi-byte UTF-8 sequence.
constexpr std::uint64_t run_ends(std::uint64_t word) {
  using namespace byte_words;
  return high(word) | below(word, 0x20) | equal(word, '"') | equal(word, '\\');
}

// The length of the well-formed UTF-8 sequence at `at` (Unicode 15, table 3-7: no overlong form,
// no surrogate, nothing past U+10FFFF), or 0 when it is not one. Boost's tokenizer refuses the
// same sequences; the json_strict fuzz target compares the two.
std::size_t utf8_sequence(const unsigned char* at, const unsigned char* end) {
  auto cont = [](unsigned char c, unsigned char low = 0x80, unsigned char high = 0xBF) { return c >= low && c <= high; };
  auto left = end - at;
  unsigned char c = at[0];
  if (c >= 0xC2 && c <= 0xDF) return left >= 2 && cont(at[1]) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (left < 3) return 0;
    unsigned char low = c == 0xE0 ? 0xA0 : 0x80, high = c == 0xED ? 0x9F : 0xBF;
    return cont(at[1], low, high) && cont(at[2]) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (left < 4) return 0;
    unsigned char low = c == 0xF0 ? 0x90 : 0x80, high = c == 0xF4 ? 0x8F : 0xBF;
    return cont(at[1], low, high) && cont(at[2]) && cont(at[3]) ? 4 : 0;
  }
  return 0;
}

// The character a short escape stands for ("\n" and the like), or 0 for \u and for what is not
// an escape: the scanner gives those texts to Boost's tokenizer.
constexpr char unescaped(char c) {
  switch (c) {
    case '"': return '"';
    case '\\': return '\\';
    case '/': return '/';
    case 'b': return '\b';
    case 'f': return '\f';
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    default: return 0;
  }
}

// The scanner's own bound on nesting, whatever the caller allows: it recurses once a level on
// the caller's stack, where Boost's tokenizer keeps its levels on the heap. A deeper text goes
// to Boost's.
constexpr std::size_t max_recursion = 128;

// A recursive descent over one whole text. Every member answers false as soon as the text leaves
// the common form; nothing is reported, since Boost's tokenizer gives the verdict then.
class scanner {
 public:
  scanner(flat_json_builder& into, std::string_view text, std::size_t max_depth)
      : out_(into), at_(text.data()), end_(text.data() + text.size()), depth_left_(std::min(max_depth, max_recursion)) {}

  bool document() {
    skip_space();
    if (!value()) return false;
    skip_space();
    return at_ == end_ && !out_.repeated_key;
  }

 private:
  void skip_space() {
    while (at_ != end_ && is_space(*at_)) ++at_;
  }
  bool next_is(char c) const { return at_ != end_ && *at_ == c; }

  bool value() {
    if (at_ == end_) return false;
    switch (*at_) {
      case '{': return object();
      case '[': return array();
      case '"': ++at_; return string();
      case 't': return literal("true", kind::boolean, 1);
      case 'f': return literal("false", kind::boolean, 0);
      case 'n': return literal("null", kind::null, 0);
      default: return integer();
    }
  }

  // One level less is left for what a container holds. Boost refuses past max_depth levels;
  // the scanner gives the text back one level sooner, so it never has to know where exactly.
  bool enter() {
    if (depth_left_ <= 1) return false;
    --depth_left_;
    ++at_;
    skip_space();
    return true;
  }

  // An object or an array, opened: its members or elements, each read by `one`, up to `close`,
  // counted in `size`.
  template <class One>
  bool container(kind type, char close, std::size_t& size, One one) {
    if (!enter()) return false;
    out_.open(type);
    if (!next_is(close)) {
      for (;;) {
        if (!one()) return false;
        ++size;
        skip_space();
        if (!next_is(',')) break;
        ++at_;
        skip_space();
      }
      if (!next_is(close)) return false;
    }
    ++at_;
    ++depth_left_;
    return true;
  }

  bool array() {
    std::size_t size = 0;
    if (!container(kind::array, ']', size, [this] { return value(); })) return false;
    out_.close(size);
    return true;
  }

  bool object() {
    std::size_t size = 0;
    if (!container(kind::object, '}', size, [this] { return member(); })) return false;
    boost::system::error_code ec;
    return out_.on_object_end(size, ec);
  }

  // A key, its colon, and its value.
  bool member() {
    if (!next_is('"')) return false;
    ++at_;
    if (!string()) return false;
    skip_space();
    if (!next_is(':')) return false;
    ++at_;
    skip_space();
    return value();
  }

  // A string or a key, after its opening quote. One without an escape is not copied: its node
  // points into the text read.
  bool string() {
    const char* run = at_;
    bool escaped = false;
    for (;;) {
      at_ = byte_words::first_marked(at_, end_, run_ends);
      if (at_ == end_) return false;
      auto c = static_cast<unsigned char>(*at_);
      if (c == '"') {
        if (escaped)
          out_.finish_string({run, static_cast<std::size_t>(at_ - run)});
        else
          out_.push_string(run, static_cast<std::size_t>(at_ - run));
        ++at_;
        return true;
      }
      if (c == '\\') {
        out_.append({run, static_cast<std::size_t>(at_ - run)});
        char one = end_ - at_ >= 2 ? unescaped(at_[1]) : 0;
        if (!one) return false;
        out_.append({&one, 1});
        escaped = true;
        at_ += 2;
        run = at_;
        continue;
      }
      if (c < 0x80) return false;  // a control character, which JSON does not allow unescaped
      auto length = utf8_sequence(reinterpret_cast<const unsigned char*>(at_), reinterpret_cast<const unsigned char*>(end_));
      if (!length) return false;
      at_ += length;
    }
  }

  bool literal(std::string_view word, kind type, std::int64_t value) {
    if (static_cast<std::size_t>(end_ - at_) < word.size() || std::memcmp(at_, word.data(), word.size()) != 0) return false;
    at_ += word.size();
    out_.push_scalar(type, value);
    return true;
  }

  // An integer of 1 to 18 digits, which Boost reads as an int64 too. Longer ones (an int64 near
  // its end, a uint64, a double), fractions and exponents (Boost's own rounding decides their
  // double), "-0" and leading zeros are Boost's to read.
  bool integer() {
    bool negative = *at_ == '-';
    if (negative) ++at_;
    const char* digits = at_;
    std::uint64_t n = 0;  // wraps past 19 digits, which are given back anyway
    while (at_ != end_ && static_cast<unsigned>(*at_ - '0') < 10) n = n * 10 + static_cast<unsigned>(*at_++ - '0');
    auto count = at_ - digits;
    if (count == 0 || count > 18 || (*digits == '0' && (count > 1 || negative))) return false;
    if (at_ != end_ && (*at_ == '.' || *at_ == 'e' || *at_ == 'E')) return false;
    auto i = static_cast<std::int64_t>(n);
    out_.push_scalar(kind::int64, negative ? -i : i);
    return true;
  }

  flat_json_builder& out_;
  const char* at_;
  const char* const end_;
  std::size_t depth_left_;
};

}  // namespace

bool scan_common_form(flat_json_builder& into, std::string_view text, std::size_t max_depth) {
  return scanner{into, text, max_depth}.document();
}

}  // namespace z402::wire
