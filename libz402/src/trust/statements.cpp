#include "z402/trust/statements.hpp"

#include "z402/core/crypto.hpp"
#include "z402/wire/base64.hpp"
#include "z402/wire/iso_time.hpp"

#include <charconv>

namespace z402::trust {
namespace {

constexpr std::string_view catalog_format = "z402 catalog 1";
constexpr std::string_view keys_format = "z402 catalog keys 1";

/// The text's lines, each without its "\n"; the text must end with one.
std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    auto end = text.find('\n');
    if (end == std::string_view::npos) return {};
    lines.push_back(text.substr(0, end));
    text.remove_prefix(end + 1);
  }
  return lines;
}

/// The value of "LABEL VALUE", or nullopt when the line has another label.
std::optional<std::string_view> value_of(std::string_view line, std::string_view label) {
  if (!line.starts_with(label) || line.size() <= label.size() || line[label.size()] != ' ') return std::nullopt;
  return line.substr(label.size() + 1);
}

expected<std::uint64_t> number_line(std::string_view line, std::string_view label) {
  auto v = value_of(line, label);
  std::uint64_t n = 0;
  if (v && !v->empty() && (v->size() == 1 || (*v)[0] != '0')) {
    auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
    if (ec == std::errc{} && end == v->data() + v->size()) return n;
  }
  return refused(std::string{label}, "the line '" + std::string{label} + " N' is missing or N is not a decimal number");
}

expected<std::int64_t> expires_line(std::string_view line) {
  auto v = value_of(line, "expires");
  auto ms = v ? wire::parse_iso_ms(*v) : expected<std::int64_t>{refused("expires", "")};
  if (!ms) return refused("expires", "the line 'expires TIME' is missing or TIME is not an ISO-8601 UTC time");
  return ms;
}

expected<std::string> origin_line(const std::vector<std::string_view>& lines) {
  if (lines.empty() || !valid_key_name(lines[0])) return refused("origin", "the first line is not an origin (a name without spaces)");
  return std::string{lines[0]};
}

}  // namespace

std::string text_of(const catalog_statement& s) {
  return s.origin + "\n" + std::string{catalog_format} + "\nsequence " + std::to_string(s.sequence) + "\nsize " +
         std::to_string(s.size) + "\nsha256 " + wire::base64_encode(s.sha256) + "\nexpires " + wire::format_iso_ms(s.expires_ms) + "\n";
}

expected<catalog_statement> parse_catalog_statement(std::string_view text) {
  auto lines = lines_of(text);
  if (lines.size() != 6) return refused("text", "a catalog note has six lines");
  catalog_statement s;
  auto origin = origin_line(lines);
  if (!origin) return origin.error();
  s.origin = std::move(*origin);
  if (lines[1] != catalog_format) return refused("format", "the second line is not '" + std::string{catalog_format} + "'");
  auto sequence = number_line(lines[2], "sequence");
  if (!sequence) return sequence.error();
  auto size = number_line(lines[3], "size");
  if (!size) return size.error();
  auto digest = value_of(lines[4], "sha256");
  auto raw = digest ? wire::base64_decode(*digest) : std::nullopt;
  if (!raw || raw->size() != 32) return refused("sha256", "the line 'sha256 BASE64' is missing or is not 32 bytes");
  auto expires = expires_line(lines[5]);
  if (!expires) return expires.error();
  s.sequence = *sequence, s.size = *size, s.sha256 = std::move(*raw), s.expires_ms = *expires;
  return s;
}

std::string text_of(const keys_statement& s) {
  auto out = s.origin + "\n" + std::string{keys_format} + "\nexpires " + wire::format_iso_ms(s.expires_ms) + "\n";
  for (auto& k : s.online) out += "online " + k.text() + "\n";
  return out;
}

expected<keys_statement> parse_keys_statement(std::string_view text) {
  auto lines = lines_of(text);
  if (lines.size() < 4) return refused("text", "a keys note has an origin, a format, an expiry and at least one online key");
  if (lines.size() > 3 + max_online_keys) return refused("online", "a keys note names at most 8 online keys");
  keys_statement s;
  auto origin = origin_line(lines);
  if (!origin) return origin.error();
  s.origin = std::move(*origin);
  if (lines[1] != keys_format) return refused("format", "the second line is not '" + std::string{keys_format} + "'");
  auto expires = expires_line(lines[2]);
  if (!expires) return expires.error();
  s.expires_ms = *expires;
  for (std::size_t i = 3; i < lines.size(); ++i) {
    auto v = value_of(lines[i], "online");
    if (!v) return refused("online", "line " + std::to_string(i + 1) + " is not 'online VERIFIER-KEY'");
    auto key = parse_verifier(*v, "online");
    if (!key) return key.error();
    s.online.push_back(std::move(*key));
  }
  return s;
}

std::string catalog_file_name(std::string_view sha256) { return crypto::hex(sha256) + ".json"; }

}  // namespace z402::trust
