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
constexpr const char* journal_format_name = "z402-catalog-journal";
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

// An item's 30 days as saved: paidCalls on paidDay; callsByDay (the 30 days ending with
// paidDay, oldest first) only when a day before paidDay has calls, and lastCalled (ms) once a
// call was counted, so an item never paid saves what it did before the 30 days were kept (and a
// file from then loads, with that one day and no time of a last call).
expected<daily_counts> read_usage(const boost::json::object& o, std::int64_t paid_calls, std::int64_t paid_day) {
  auto fits = [](std::int64_t n) { return n >= 0 && n <= std::int64_t{UINT32_MAX}; };
  daily_counts::ring ring{};
  if (auto* by_day = o.if_contains("callsByDay")) {
    auto* days = by_day->if_array();
    if (!days || days->size() != ring.size()) return bad("field callsByDay is not an array of 30 counts");
    for (std::size_t i = 0; i < ring.size(); ++i) {
      auto& v = (*days)[i];
      if (!v.is_int64() || !fits(v.get_int64())) return bad("field callsByDay holds a count that is not one");
      ring[i] = static_cast<std::uint32_t>(v.get_int64());
    }
    if (ring.back() != paid_calls) return bad("field callsByDay does not end with paidCalls");
  } else {
    if (!fits(paid_calls)) return bad("field paidCalls is out of range");
    ring.back() = static_cast<std::uint32_t>(paid_calls);
  }
  std::int64_t last_called = -1;
  if (o.contains("lastCalled")) {
    auto at = int_at(o, "lastCalled");
    if (!at || *at < 0) return bad("field lastCalled is not a time");
    last_called = *at;
  }
  return daily_counts{paid_day, ring, last_called};
}

/// The saved fields of `u` (after a comma or an opening brace): paidCalls, paidDay, and
/// callsByDay and lastCalled when there is anything to say.
void append_usage(std::string& out, const daily_counts& u) {
  auto newest = u.newest_day();
  out.append(R"("paidCalls":)").append(std::to_string(u.on(newest)));
  out.append(R"(,"paidDay":)").append(std::to_string(newest));
  if (u.last_30_days(newest) != u.on(newest)) {
    out.append(R"(,"callsByDay":[)");
    auto ring = u.by_day(newest);
    for (std::size_t i = 0; i < ring.size(); ++i) out.append(i ? "," : "").append(std::to_string(ring[i]));
    out.append("]");
  }
  if (u.last_called_ms() >= 0) out.append(R"(,"lastCalled":)").append(std::to_string(u.last_called_ms()));
}

// What a count or a heartbeat changes, and the seq: read for an item of the file and for a
// journal's state line.
expected<void> read_state(const boost::json::object& o, item_record& r) {
  auto* declared = o.if_contains("declared");
  if (!declared || !declared->is_bool()) return bad("field declared is not a boolean");
  auto seq = int_at(o, "seq"), last_seen = int_at(o, "lastSeen"), last_updated = int_at(o, "lastUpdated"),
       paid_calls = int_at(o, "paidCalls"), paid_day = int_at(o, "paidDay");
  for (auto* number : {&seq, &last_seen, &last_updated, &paid_calls, &paid_day})
    if (!*number) return number->error();
  r.declared = declared->get_bool();
  r.seq = static_cast<std::uint64_t>(*seq);
  r.last_seen_ms = *last_seen;
  r.last_updated_ms = *last_updated;
  auto usage = read_usage(o, *paid_calls, *paid_day);
  if (!usage) return usage.error();
  r.usage = *usage;
  return {};
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
  item_record r;
  if (auto state = read_state(o, r); !state) return state.error();
  r.provider = std::move(*provider);
  r.identity = {std::move(*type), std::move(*resource), std::move(*selector)};
  r.content = make_content(fields->get_object(), r.identity.selector);
  return r;
}

// An item's line up to its content: what the file and the journal's "item" lines both hold.
std::string record_head(const item_record& r) {
  boost::json::object fields{{"provider", r.provider},     {"type", r.identity.type},
                             {"resource", r.identity.resource}, {"selector", r.identity.selector},
                             {"declared", r.declared},     {"seq", r.seq},
                             {"lastSeen", r.last_seen_ms}, {"lastUpdated", r.last_updated_ms}};
  auto head = boost::json::serialize(fields);
  head.back() = ',';
  append_usage(head, r.usage);
  head.append(R"(,"fields":)");
  return head;
}

saved_item saved_as(const item_record& r) {
  return {r.seq, r.content, r.declared, r.last_seen_ms, r.last_updated_ms, r.usage};
}

// The first line: the format, and which catalog state the file holds (the epoch of the run that
// numbered it, as a string since it is a full 64 bits; its version; the UTC day its items were
// rendered for), so a follower that restarts can resume from it (catalog_load::position).
std::string file_head(const snapshot& snap) {
  return std::string{R"({"format":")"} + format_name + R"(","version":)" + std::to_string(format_version) + R"(,"epoch":")" +
         std::to_string(snap.epoch) + R"(","catalogVersion":)" + std::to_string(snap.version) + R"(,"day":)" +
         std::to_string(rendered_day_of(snap).value_or(0)) + R"(,"items":[)";
}

// The epoch (a string: it is a full 64 bits), catalogVersion and, `with_day`, the UTC day of a
// catalog state, from the file's head or a journal line.
expected<void> read_position(const boost::json::object& o, catalog_position& position, bool with_day) {
  auto epoch = string_at(o, "epoch");
  auto catalog_version = int_at(o, "catalogVersion");
  auto day = with_day ? int_at(o, "day") : expected<std::int64_t>{0};
  if (!epoch || !catalog_version || !day) return bad("the epoch, catalogVersion or day is malformed");
  auto [end, ec] = std::from_chars(epoch->data(), epoch->data() + epoch->size(), position.epoch);
  if (ec != std::errc{} || end != epoch->data() + epoch->size()) return bad("the epoch is not a number");
  position.version = static_cast<std::uint64_t>(*catalog_version);
  position.day = *day;
  return {};
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
  if (auto read = read_position(head, position, true); !read) return read.error();
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

// One line of the journal, read.
struct journal_line {
  enum class kind { item, state, removed, commit };
  kind what = kind::item;
  item_record record;          // item: all of it; state: seq and the six numbers; removed: seq
  catalog_position position;   // commit
};

expected<journal_line> read_journal_line(std::string_view text) {
  auto doc = wire::parse_strict(text, 64);
  if (!doc) return bad(doc.error().reason);
  if (!doc->is_object() || doc->get_object().size() != 1) return bad("not an object of one change");
  auto& [key, value] = *doc->get_object().begin();
  journal_line line;
  if (key == "item") {
    auto record = record_from(value);
    if (!record) return record.error();
    line.record = std::move(*record);
    return line;
  }
  if (key == "removed") {
    if (!value.is_int64()) return bad("removed is not an integer of 64 signed bits");
    line.what = journal_line::kind::removed;
    line.record.seq = static_cast<std::uint64_t>(value.get_int64());
    return line;
  }
  if (!value.is_object()) return bad(std::string{key} + " is not an object");
  auto& o = value.get_object();
  if (key == "commit") {
    line.what = journal_line::kind::commit;
    if (auto read = read_position(o, line.position, true); !read) return read.error();
    return line;
  }
  if (key != "state") return bad("unknown change " + std::string{key});
  line.what = journal_line::kind::state;
  if (auto state = read_state(o, line.record); !state) return state.error();
  return line;
}

// One committed change applied to `records` (in seq order).
expected<void> apply(std::vector<item_record>& records, journal_line& line) {
  auto pos = std::lower_bound(records.begin(), records.end(), line.record.seq, [](auto& r, std::uint64_t seq) { return r.seq < seq; });
  bool held = pos != records.end() && pos->seq == line.record.seq;
  switch (line.what) {
    case journal_line::kind::item:
      if (held) *pos = std::move(line.record);
      else records.insert(pos, std::move(line.record));
      return {};
    case journal_line::kind::state:
      if (!held) return bad("state of item " + std::to_string(line.record.seq) + ", which the catalog does not hold");
      pos->declared = line.record.declared;
      pos->last_seen_ms = line.record.last_seen_ms;
      pos->last_updated_ms = line.record.last_updated_ms;
      pos->usage = line.record.usage;
      return {};
    case journal_line::kind::removed:
      if (!held) return bad("removal of item " + std::to_string(line.record.seq) + ", which the catalog does not hold");
      records.erase(pos);
      return {};
    case journal_line::kind::commit:
      break;
  }
  return bad("a commit inside a batch");
}

// Applies the journal's committed batches to the file's `records` and `position`, a line at a
// time; a journal that continues another file (written before this one) is not applied. A line
// cut short at the end, and whole lines after the last commit, are a torn append: ignored.
expected<void> read_journal(std::istream& in, std::vector<item_record>& records, catalog_position& position) {
  std::string text;
  // A line without its newline was cut short: the file ends in it.
  auto next_line = [&] { return std::getline(in, text) && !in.eof(); };
  if (!next_line()) return {};  // its head torn: nothing was committed after it
  auto head = wire::parse_strict(text, 4);
  if (!head || !head->is_object()) return bad("line 1: not the journal's head");
  auto format = string_at(head->get_object(), "format");
  auto version = int_at(head->get_object(), "version");
  auto* file = head->get_object().if_contains("file");
  if (!format || *format != journal_format_name || !version || *version != format_version || !file || !file->is_object())
    return bad("line 1: unknown format or version");
  catalog_position continues;
  if (auto read = read_position(file->get_object(), continues, false); !read) return bad("line 1: " + read.error().reason);
  if (continues.epoch != position.epoch || continues.version != position.version) return {};
  if (!std::is_sorted(records.begin(), records.end(), [](auto& a, auto& b) { return a.seq < b.seq; }))
    std::stable_sort(records.begin(), records.end(), [](auto& a, auto& b) { return a.seq < b.seq; });
  std::vector<journal_line> batch;
  for (std::size_t number = 2; next_line(); ++number) {
    auto line = read_journal_line(text);
    if (!line) return bad("line " + std::to_string(number) + ": " + line.error().reason);
    if (line->what != journal_line::kind::commit) {
      batch.push_back(std::move(*line));
      continue;
    }
    for (auto& change : batch)
      if (auto applied = apply(records, change); !applied)
        return bad("the batch of line " + std::to_string(number) + ": " + applied.error().reason);
    batch.clear();
    position = line->position;
  }
  if (in.bad()) return bad("the journal could not be read");
  return {};
}

// The catalog file's items and position into `result`: loaded, or the first thing wrong.
expected<void> read_file_records(const std::filesystem::path& file, catalog_load& result) {
  // One item a line: the peak is one item's tree, not the whole catalog's (6x its size).
  auto lines = read_lines(file, result.records, result.position);
  if (!lines) return lines.error();
  if (*lines) return {};
  auto whole = read_whole(file);
  if (!whole) return whole.error();
  result.records = std::move(*whole);
  return {};
}

std::filesystem::path move_aside(const std::filesystem::path& file, std::int64_t now_ms, std::string& problem) {
  auto aside = file;
  aside += ".corrupt-" + std::to_string(now_ms);
  std::error_code ec;
  std::filesystem::rename(file, aside, ec);
  if (ec) problem += " (and it could not be moved aside: " + ec.message() + ")";
  return aside;
}

}  // namespace

void serialize_catalog(const snapshot& snap, const config::chunk_sink& sink) {
  // Written from each item's pre-serialised content: no JSON tree of the whole catalog. One
  // item a line (still one JSON document), so loading parses one item at a time.
  sink(file_head(snap));
  bool first = true;
  for (auto& it : snap.items) {
    auto& r = it->record();
    sink(first ? "\n" : ",\n");
    first = false;
    sink(record_head(r));
    sink(r.content->json);
    sink("}");
  }
  sink("\n]}");
}

std::filesystem::path journal_path(const std::filesystem::path& file) {
  auto journal = file;
  journal += ".journal";
  return journal;
}

saved_catalog saved_form(const snapshot& snap) {
  saved_catalog saved;
  saved.reserve(snap.items.size());
  for (auto& it : snap.items) saved.push_back(saved_as(it->record()));
  return saved;
}

std::string journal_head(const snapshot& file_snap) {
  return std::string{R"({"format":")"} + journal_format_name + R"(","version":)" + std::to_string(format_version) +
         R"(,"file":{"epoch":")" + std::to_string(file_snap.epoch) + R"(","catalogVersion":)" +
         std::to_string(file_snap.version) + "}}\n";
}

void journal_batch(const saved_catalog& saved, const snapshot& snap, saved_catalog& next, const config::chunk_sink& sink) {
  std::string line;
  auto removed = [&](std::uint64_t seq) {
    line.assign(R"({"removed":)").append(std::to_string(seq)).append("}\n");
    sink(line);
  };
  next.clear();
  next.reserve(snap.items.size());
  auto was = saved.begin();
  for (auto& it : snap.items) {
    auto& r = it->record();
    for (; was != saved.end() && was->seq < r.seq; ++was) removed(was->seq);
    bool kept = was != saved.end() && was->seq == r.seq;
    if (!kept || was->content != r.content) {
      sink(R"({"item":)");
      sink(record_head(r));
      sink(r.content->json);
      sink("}}\n");
    } else if (was->declared != r.declared || was->last_seen_ms != r.last_seen_ms || was->last_updated_ms != r.last_updated_ms ||
               was->usage != r.usage) {
      line.assign(R"({"state":{"seq":)").append(std::to_string(r.seq));
      line.append(R"(,"declared":)").append(r.declared ? "true" : "false");
      line.append(R"(,"lastSeen":)").append(std::to_string(r.last_seen_ms));
      line.append(R"(,"lastUpdated":)").append(std::to_string(r.last_updated_ms));
      line.append(",");
      append_usage(line, r.usage);
      line.append("}}\n");
      sink(line);
    }
    if (kept) ++was;
    next.push_back(saved_as(r));
  }
  for (; was != saved.end(); ++was) removed(was->seq);
  line.assign(R"({"commit":{"epoch":")").append(std::to_string(snap.epoch));
  line.append(R"(","catalogVersion":)").append(std::to_string(snap.version));
  line.append(R"(,"day":)").append(std::to_string(rendered_day_of(snap).value_or(0))).append("}}\n");
  sink(line);
}

catalog_load load_catalog(const std::filesystem::path& file, std::int64_t now_ms) {
  catalog_load result;
  std::error_code exists_ec;
  if (!std::filesystem::exists(file, exists_ec) && !exists_ec) return result;  // missing: an empty catalog
  if (auto read = read_file_records(file, result); !read) {
    result.problem = read.error().reason;
    result.records.clear();
    result.position = {};
    result.state = catalog_load::status::corrupt;
    result.moved_aside = move_aside(file, now_ms, result.problem);
    return result;
  }
  result.state = catalog_load::status::loaded;
  auto journal = journal_path(file);
  if (!std::filesystem::exists(journal, exists_ec) && !exists_ec) return result;
  std::ifstream in{journal, std::ios::binary};
  auto applied = in ? read_journal(in, result.records, result.position) : expected<void>{bad("the journal could not be opened")};
  if (applied) return result;
  // The file's items alone: an older state, which the next heartbeats and counts bring up to date.
  result.journal_problem = applied.error().reason;
  result.journal_moved_aside = move_aside(journal, now_ms, result.journal_problem);
  result.records.clear();
  result.position = {};
  if (auto again = read_file_records(file, result); !again) result.records.clear();
  return result;
}

}  // namespace z402::catalog
