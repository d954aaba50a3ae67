#include "z402/catalog/catalog_file.hpp"

#include "z402/config/atomic_file.hpp"
#include "z402/wire/iso_time.hpp"
#include "z402/wire/json.hpp"

#include <boost/json.hpp>

#include <charconv>
#include <fstream>

namespace z402::catalog {
namespace {

constexpr const char* format_name = "z402-catalog";
constexpr std::int64_t format_version = 1;

error bad(std::string reason) { return {errc::corrupt, "", std::move(reason)}; }

expected<std::int64_t> int_at(const boost::json::object& o, const char* key) {
  // Boost.JSON holds every integer that fits in 64 signed bits as int64: a uint64 is beyond it.
  auto* v = o.if_contains(key);
  if (!v || !v->is_int64()) return bad(std::string{"field "} + key + " is not an integer of 64 signed bits");
  return v->get_int64();
}

expected<std::string> string_at(const boost::json::object& o, const char* key) {
  auto* s = wire::find_string(o, key);
  if (!s) return bad(std::string{"field "} + key + " is not a string");
  return std::string{*s};
}

expected<item_record> record_from(const boost::json::value& v) {
  if (!v.is_object()) return bad("not an object");
  auto& o = v.get_object();
  auto provider = string_at(o, "provider"), type = string_at(o, "type"), resource = string_at(o, "resource"),
       selector = string_at(o, "selector");
  for (auto* text : {&provider, &type, &resource, &selector})
    if (!*text) return text->error();
  auto* fields = o.if_contains("fields");
  if (!fields || !fields->is_object()) return bad("field fields is not an object");
  auto* declared = o.if_contains("declared");
  if (!declared || !declared->is_bool()) return bad("field declared is not a boolean");
  auto seq = int_at(o, "seq"), last_seen = int_at(o, "lastSeen"), last_updated = int_at(o, "lastUpdated"),
       paid_calls = int_at(o, "paidCalls"), paid_day = int_at(o, "paidDay");
  for (auto* number : {&seq, &last_seen, &last_updated, &paid_calls, &paid_day})
    if (!*number) return number->error();
  item_record r;
  r.provider = std::move(*provider);
  r.identity = {std::move(*type), std::move(*resource), std::move(*selector)};
  r.content = make_content(fields->get_object(), r.identity.selector);
  r.declared = declared->get_bool();
  r.seq = static_cast<std::uint64_t>(*seq);
  r.last_seen_ms = *last_seen;
  r.last_updated_ms = *last_updated;
  r.paid_calls = static_cast<std::uint64_t>(*paid_calls);
  r.paid_day = *paid_day;
  return r;
}

// The first line: the format, and which catalog state the file holds (the epoch of the run that
// numbered it, as a string since it is a full 64 bits; its version; the UTC day its items were
// rendered for), so a follower that restarts can resume from it (catalog_load::position).
std::string file_head(const snapshot& snap) {
  return std::string{R"({"format":")"} + format_name + R"(","version":)" + std::to_string(format_version) + R"(,"epoch":")" +
         std::to_string(snap.epoch) + R"(","catalogVersion":)" + std::to_string(snap.version) + R"(,"day":)" +
         std::to_string(wire::utc_day(snap.published_ms)) + R"(,"items":[)";
}

// Reads the first line as a JSON object (it is the document's head, closed here): false when the
// file does not start with this layout's head.
expected<bool> read_head(const std::string& line, catalog_position& position) {
  if (!line.starts_with(R"({"format":")") || !line.ends_with(R"("items":[)")) return false;
  auto doc = wire::parse_strict(line + "]}", 4);
  if (!doc || !doc->is_object()) return false;
  auto& head = doc->get_object();
  auto format = string_at(head, "format");
  auto version = int_at(head, "version");
  if (!format || *format != format_name || !version || *version != format_version) return bad("unknown format or version");
  // Files written before the position was kept have none: nothing to resume from.
  if (!head.contains("epoch")) return true;
  auto epoch = string_at(head, "epoch");
  auto catalog_version = int_at(head, "catalogVersion");
  auto day = int_at(head, "day");
  if (!epoch || !catalog_version || !day) return bad("the head's epoch, catalogVersion or day is malformed");
  auto [end, ec] = std::from_chars(epoch->data(), epoch->data() + epoch->size(), position.epoch);
  if (ec != std::errc{} || end != epoch->data() + epoch->size()) return bad("the head's epoch is not a number");
  position.version = static_cast<std::uint64_t>(*catalog_version);
  position.day = *day;
  return true;
}

/// Reads the one-item-a-line layout: whether the file has it (an older file written as one line
/// is read whole by the caller), or the first thing wrong in it.
expected<bool> read_lines(const std::filesystem::path& file, std::vector<item_record>& records, catalog_position& position) {
  std::ifstream in{file};
  std::string line;
  if (!std::getline(in, line)) return false;
  if (auto head = read_head(line, position); !head || !*head) return head;
  bool ended = false;
  while (std::getline(in, line)) {
    if (ended) return bad("text after the end of the items");
    if (line == "]}") {
      ended = true;
      continue;
    }
    if (!line.empty() && line.back() == ',') line.pop_back();
    auto doc = wire::parse_strict(line, 64);
    auto record = doc ? record_from(*doc) : expected<item_record>{doc.error()};
    if (!record) return bad("item " + std::to_string(records.size()) + ": " + record.error().reason);
    records.push_back(std::move(*record));
  }
  if (!ended) return bad("the file ends before its items do");
  return true;
}

/// Reads a file written before the one-item-a-line layout: one line, read whole.
expected<std::vector<item_record>> read_whole(const std::filesystem::path& file) {
  auto text = config::read_file(file);
  if (!text) return text.error();
  auto doc = wire::parse_strict(*text, 64);
  if (!doc) return doc.error();
  if (!doc->is_object()) return bad("not an object");
  auto& root = doc->get_object();
  auto format = string_at(root, "format");
  auto version = int_at(root, "version");
  if (!format || *format != format_name || !version || *version != format_version) return bad("unknown format or version");
  auto* items = root.if_contains("items");
  if (!items || !items->is_array()) return bad("field items is not an array");
  std::vector<item_record> records;
  for (auto& v : items->get_array()) {
    auto record = record_from(v);
    if (!record) return record.error();
    records.push_back(std::move(*record));
  }
  return records;
}

}  // namespace

void serialize_catalog(const snapshot& snap, const config::chunk_sink& sink) {
  // Written from each item's pre-serialised content: no JSON tree of the whole catalog. One
  // item a line (still one JSON document), so loading parses one item at a time.
  sink(file_head(snap));
  bool first = true;
  for (auto& it : snap.items) {
    auto& r = it->record();
    boost::json::object fields{{"provider", r.provider},     {"type", r.identity.type},
                               {"resource", r.identity.resource}, {"selector", r.identity.selector},
                               {"declared", r.declared},     {"seq", r.seq},
                               {"lastSeen", r.last_seen_ms}, {"lastUpdated", r.last_updated_ms},
                               {"paidCalls", r.paid_calls},  {"paidDay", r.paid_day}};
    std::string head = first ? "\n" : ",\n";
    first = false;
    auto record = boost::json::serialize(fields);
    head.append(record, 0, record.size() - 1).append(R"(,"fields":)");
    sink(head);
    sink(r.content->json);
    sink("}");
  }
  sink("\n]}");
}

catalog_load load_catalog(const std::filesystem::path& file, std::int64_t now_ms) {
  catalog_load result;
  std::error_code exists_ec;
  if (!std::filesystem::exists(file, exists_ec) && !exists_ec) return result;  // missing: an empty catalog
  // One item a line: the peak is one item's tree, not the whole catalog's (6x its size).
  auto lines = read_lines(file, result.records, result.position);
  if (lines && !*lines) {
    auto whole = read_whole(file);
    if (whole) result.records = std::move(*whole);
    else lines = whole.error();
  }
  if (lines) {
    result.state = catalog_load::status::loaded;
    return result;
  }
  result.problem = lines.error().reason;
  result.records.clear();
  result.position = {};
  result.state = catalog_load::status::corrupt;
  result.moved_aside = file;
  result.moved_aside += ".corrupt-" + std::to_string(now_ms);
  std::error_code ec;
  std::filesystem::rename(file, result.moved_aside, ec);
  if (ec) result.problem += " (and it could not be moved aside: " + ec.message() + ")";
  return result;
}

}  // namespace z402::catalog
