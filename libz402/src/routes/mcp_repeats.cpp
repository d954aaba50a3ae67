#include "routes/mcp_repeats.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <string>

namespace z402::routes {
namespace {

constexpr std::size_t remembered = 4;        // messages per io thread
constexpr std::size_t longest_id = 64;       // bytes of an id's text on the short path

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/// The end of the JSON string starting at `m[i]` (a quote), past its closing quote; npos when
/// it does not close.
std::size_t string_end(std::string_view m, std::size_t i) {
  for (++i; i < m.size(); ++i) {
    if (m[i] == '\\') ++i;
    else if (m[i] == '"') return i + 1;
  }
  return std::string_view::npos;
}

/// Whether `v` is an id the short path writes as the full path would: an integer in int64 or
/// uint64 range without a leading zero or "-0", or a string of printable ASCII with no escape.
bool plain_id(std::string_view v) {
  if (v.empty() || v.size() > longest_id) return false;
  if (v.front() == '"') {
    if (v.size() < 2 || v.back() != '"') return false;
    return std::all_of(v.begin() + 1, v.end() - 1, [](char c) { return c >= 0x20 && c <= 0x7e && c != '"' && c != '\\'; });
  }
  auto digits = v.front() == '-' ? v.substr(1) : v;
  if (digits.empty() || (digits.front() == '0' && (digits.size() > 1 || v.front() == '-'))) return false;
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) return false;
  auto end = v.data() + v.size();
  std::int64_t s = 0;
  if (auto r = std::from_chars(v.data(), end, s); r.ec == std::errc{} && r.ptr == end) return true;
  if (v.front() == '-') return false;
  std::uint64_t u = 0;
  auto r = std::from_chars(v.data(), end, u);
  return r.ec == std::errc{} && r.ptr == end;
}

struct remembered_message {
  const void* owner = nullptr;
  cache_version made_for;
  std::string rest;  // the message without its id's text
  mcp::shared_result result;
};

struct thread_memory {
  std::array<remembered_message, remembered> slots;
  std::size_t next = 0;
  std::string rest;  // the message being looked up, without its id's text
};

thread_local thread_memory memory;

/// `message` without its id's text, into `out`; false when it has no plain id.
bool rest_of(std::string_view message, std::string& out, std::string_view* id) {
  auto span = plain_id_span(message);
  if (!span) return false;
  *id = message.substr(span->first, span->second);
  out.assign(message.substr(0, span->first)).append(message.substr(span->first + span->second));
  return true;
}

}  // namespace

std::optional<std::pair<std::size_t, std::size_t>> plain_id_span(std::string_view m) {
  std::size_t i = 0;
  while (i < m.size() && is_space(m[i])) ++i;
  if (i == m.size() || m[i] != '{') return std::nullopt;
  std::optional<std::pair<std::size_t, std::size_t>> found;
  std::size_t depth = 0;
  bool key_next = false;  // at the top level, after '{' or ','
  for (; i < m.size(); ++i) {
    char c = m[i];
    if (is_space(c)) continue;
    if (c == '"') {
      auto end = string_end(m, i);
      if (end == std::string_view::npos) return std::nullopt;
      if (depth == 1 && key_next) {
        key_next = false;
        if (m.substr(i, end - i) == R"("id")") {
          auto v = end;
          while (v < m.size() && is_space(m[v])) ++v;
          if (v == m.size() || m[v] != ':') return std::nullopt;
          ++v;
          while (v < m.size() && is_space(m[v])) ++v;
          auto v_end = v < m.size() && m[v] == '"' ? string_end(m, v) : m.find_first_of(",} \t\n\r", v);
          if (v_end == std::string_view::npos || found || !plain_id(m.substr(v, v_end - v))) return std::nullopt;
          found = std::pair{v, v_end - v};
          end = v_end;
        }
      }
      i = end - 1;
      continue;
    }
    if (c == '{' || c == '[') {
      ++depth;
      key_next = depth == 1;
    } else if (c == '}' || c == ']') {
      if (depth == 0) return std::nullopt;
      --depth;
      if (depth == 0) {
        for (++i; i < m.size() && is_space(m[i]);) ++i;
        return i == m.size() ? found : std::nullopt;
      }
    } else if (c == ',') {
      key_next = depth == 1;
    }
  }
  return std::nullopt;
}

std::optional<repeat> find_repeat(const void* owner, std::string_view message, cache_version now) {
  auto& mem = memory;
  std::string_view id;
  if (!rest_of(message, mem.rest, &id)) return std::nullopt;
  std::optional<repeat> hit;
  for (auto& slot : mem.slots) {
    if (!slot.result) continue;
    if (slot.made_for.superseded_by(now)) {
      slot = {};  // never asked for again: let it go
      continue;
    }
    if (!hit && slot.owner == owner && slot.made_for.epoch == now.epoch && slot.made_for.version == now.version && slot.rest == mem.rest)
      hit = repeat{slot.result, id};
  }
  return hit;
}

void remember_repeat(const void* owner, std::string_view message, cache_version made_for, mcp::shared_result result) {
  auto& mem = memory;
  std::string rest;
  std::string_view id;
  if (!rest_of(message, rest, &id)) return;
  auto& slot = mem.slots[mem.next];
  mem.next = (mem.next + 1) % remembered;
  slot = {owner, made_for, std::move(rest), std::move(result)};
}

}  // namespace z402::routes
