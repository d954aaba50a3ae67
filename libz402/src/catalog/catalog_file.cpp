#include "z402/catalog/catalog_file.hpp"

#include "z402/config/atomic_file.hpp"
#include "z402/wire/json.hpp"

#include <boost/json.hpp>

#include <fstream>
#include <stdexcept>

namespace z402::catalog {
namespace {

constexpr const char* format_name = "z402-catalog";
constexpr std::int64_t format_version = 1;

std::int64_t int_at(const boost::json::object& o, const char* key) {
  auto* v = o.if_contains(key);
  if (!v || !(v->is_int64() || v->is_uint64())) throw std::runtime_error(std::string{"field "} + key + " is not an integer");
  return v->to_number<std::int64_t>();
}

std::string string_at(const boost::json::object& o, const char* key) {
  auto* s = wire::find_string(o, key);
  if (!s) throw std::runtime_error(std::string{"field "} + key + " is not a string");
  return s->c_str();
}

item_record record_from(const boost::json::value& v) {
  auto& o = v.as_object();
  item_record r;
  r.provider = string_at(o, "provider");
  r.identity = {string_at(o, "type"), string_at(o, "resource"), string_at(o, "selector")};
  auto* fields = o.if_contains("fields");
  if (!fields || !fields->is_object()) throw std::runtime_error("field fields is not an object");
  r.content = make_content(fields->as_object(), r.identity.selector);
  r.declared = o.at("declared").as_bool();
  r.seq = static_cast<std::uint64_t>(int_at(o, "seq"));
  r.last_seen_ms = int_at(o, "lastSeen");
  r.last_updated_ms = int_at(o, "lastUpdated");
  r.paid_calls = static_cast<std::uint64_t>(int_at(o, "paidCalls"));
  r.paid_day = int_at(o, "paidDay");
  return r;
}

std::string file_head() {
  return std::string{R"({"format":")"} + format_name + R"(","version":)" + std::to_string(format_version) + R"(,"items":[)";
}

/// Reads the one-item-a-line layout; false when the file does not have it (an older file
/// written as one line is read whole by the caller). Throws on a bad item.
bool read_lines(const std::filesystem::path& file, std::vector<item_record>& records) {
  std::ifstream in{file};
  std::string line;
  if (!std::getline(in, line) || line != file_head()) return false;
  bool ended = false;
  while (std::getline(in, line)) {
    if (ended) throw std::runtime_error("text after the end of the items");
    if (line == "]}") {
      ended = true;
      continue;
    }
    if (!line.empty() && line.back() == ',') line.pop_back();
    auto item = wire::parse_strict(line, 64);
    if (!item || !item->is_object())
      throw std::runtime_error("item " + std::to_string(records.size()) + ": " + (item ? "not an object" : item.error().reason));
    records.push_back(record_from(*item));
  }
  if (!ended) throw std::runtime_error("the file ends before its items do");
  return true;
}

}  // namespace

void serialize_catalog(const snapshot& snap, const config::chunk_sink& sink) {
  // Written from each item's pre-serialised content: no JSON tree of the whole catalog. One
  // item a line (still one JSON document), so loading parses one item at a time.
  sink(file_head());
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
  try {
    // One item a line: the peak is one item's tree, not the whole catalog's (6x its size).
    if (!read_lines(file, result.records)) {
      // A file written before that layout: one line, read whole.
      result.records.clear();
      auto text = config::read_file(file);
      if (!text) throw std::runtime_error(text.error().reason);
      auto doc = wire::parse_strict(*text, 64);
      if (!doc) throw std::runtime_error(doc.error().reason);
      auto& root = doc->as_object();
      if (string_at(root, "format") != format_name || int_at(root, "version") != format_version)
        throw std::runtime_error("unknown format or version");
      for (auto& v : root.at("items").as_array()) result.records.push_back(record_from(v));
    }
    result.state = catalog_load::status::loaded;
    return result;
  } catch (const std::exception& e) {
    result.problem = e.what();
  }
  result.records.clear();
  result.state = catalog_load::status::corrupt;
  result.moved_aside = file;
  result.moved_aside += ".corrupt-" + std::to_string(now_ms);
  std::error_code ec;
  std::filesystem::rename(file, result.moved_aside, ec);
  if (ec) result.problem += " (and it could not be moved aside: " + ec.message() + ")";
  return result;
}

}  // namespace z402::catalog
