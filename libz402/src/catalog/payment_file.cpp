#include "catalog/payment_file.hpp"

#include "z402/config/atomic_file.hpp"

#include <deque>
#include <string_view>

namespace z402::catalog {
namespace {

constexpr std::string_view header{"z402pay1", payment_file_header_bytes};

void put_u64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

std::uint64_t get_u64(const char* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | static_cast<unsigned char>(p[i]);
  return v;
}

std::string encode(const std::vector<payment_record>& records) {
  std::string out;
  out.reserve(records.size() * payment_record_bytes);
  for (auto& r : records) {
    put_u64(out, r.id.high);
    put_u64(out, r.id.low);
    put_u64(out, static_cast<std::uint64_t>(r.at_ms));
  }
  return out;
}

}  // namespace

payments_load load_payments(const std::filesystem::path& file, std::int64_t now_ms, std::int64_t window_ms,
                            std::size_t capacity) {
  payments_load result;
  auto text = config::read_file(file);
  if (!text) {
    if (text.error().code == errc::not_found) return result;
    result.state = payments_load::status::corrupt;
    result.problem = text.error().reason;
    return result;
  }
  if (text->size() < header.size() || std::string_view{*text}.substr(0, header.size()) != header) {
    result.state = payments_load::status::corrupt;
    result.problem = "it does not start with the payments file header";
    auto aside = file;
    aside += ".corrupt-" + std::to_string(now_ms);
    std::error_code ec;
    std::filesystem::rename(file, aside, ec);
    if (ec) result.problem += " (and it could not be moved aside: " + ec.message() + ")";
    return result;
  }
  result.state = payments_load::status::loaded;
  result.records_in_file = (text->size() - header.size()) / payment_record_bytes;
  result.good_bytes = header.size() + result.records_in_file * payment_record_bytes;
  std::deque<payment_record> kept;  // the newest `capacity` within the window
  for (std::uint64_t i = 0; i < result.records_in_file; ++i) {
    auto* p = text->data() + header.size() + i * payment_record_bytes;
    payment_record r{{get_u64(p), get_u64(p + 8)}, static_cast<std::int64_t>(get_u64(p + 16))};
    if (r.at_ms <= now_ms - window_ms) continue;
    kept.push_back(r);
    if (kept.size() > capacity) kept.pop_front();
  }
  result.records.assign(kept.begin(), kept.end());
  return result;
}

expected<void> append_payments(const std::filesystem::path& file, std::uint64_t& good_bytes,
                               const std::vector<payment_record>& records) {
  std::string bytes;
  if (good_bytes == 0) bytes.append(header);
  bytes += encode(records);
  return config::append_durably(file, good_bytes, bytes);
}

expected<void> rewrite_payments(const std::filesystem::path& file, const std::vector<payment_record>& records) {
  return config::write_file_atomically(file, [&](const config::chunk_sink& sink) {
    sink(header);
    sink(encode(records));
  });
}

}  // namespace z402::catalog
