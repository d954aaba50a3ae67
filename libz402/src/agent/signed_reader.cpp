#include "z402/agent/signed_reader.hpp"

#include "z402/config/atomic_file.hpp"
#include "z402/core/crypto.hpp"
#include "z402/wire/base64.hpp"
#include "z402/wire/json.hpp"

#include <boost/json.hpp>

#include <cstdlib>

namespace z402::agent {
namespace {

namespace json = boost::json;

constexpr std::size_t note_budget = 64u << 10;
constexpr std::size_t header_allowance = 16u << 10;  // the answer's status line and headers

/// GET `url` within `budget` bytes; the body, or why not (no redirects: a signed file has one place).
expected<std::string> get(http::client& client, const std::string& url, std::chrono::steady_clock::time_point deadline, std::size_t budget) {
  http::client_request req;
  req.url = url;
  auto res = client.fetch(req, deadline, budget);
  if (!res) return res.error();
  if (res->result_int() != 200) return error{errc::unavailable, url, url + " answered HTTP " + std::to_string(res->result_int())};
  return std::move(res->body());
}

/// The agent's state file as it is: empty when it does not exist yet. One that cannot be read
/// is an error: without it rollback could not be told.
expected<json::object> read_state(const std::filesystem::path& file) {
  auto text = config::read_file(file);
  if (!text) return text.error().code == errc::not_found ? expected<json::object>{json::object{}} : text.error();
  auto doc = wire::parse_for_display(*text, 8);
  if (!doc || !doc->is_object()) return error{errc::corrupt, file.string(), file.string() + " is not the agent's state (JSON)"};
  return std::move(doc->get_object());
}

/// What `state` remembers of `origin`; nothing when it is new here.
expected<std::optional<trust::remembered>> recall(const json::object& state, const std::filesystem::path& file, const std::string& origin) {
  auto* entry = wire::find_path(state, {"catalogs", origin});
  if (!entry) return std::optional<trust::remembered>{};
  auto* seq = entry->is_object() ? entry->get_object().if_contains("sequence") : nullptr;
  auto* digest = entry->is_object() ? entry->get_object().if_contains("sha256") : nullptr;
  auto raw = digest && digest->is_string() ? wire::base64_decode(digest->get_string()) : std::nullopt;
  bool whole = seq && (seq->is_uint64() || (seq->is_int64() && seq->get_int64() >= 0));
  if (!whole || !raw || raw->size() != 32)
    return error{errc::corrupt, file.string(), file.string() + " holds a malformed entry for " + origin};
  return std::optional{trust::remembered{seq->to_number<std::uint64_t>(), std::move(*raw)}};
}

/// `state` with `note` remembered for its origin, written over the state file.
expected<void> remember(json::object state, const std::filesystem::path& file, const trust::catalog_statement& note) {
  if (!state["catalogs"].is_object()) state["catalogs"] = json::object{};
  state["catalogs"].get_object()[note.origin] = json::object{{"sequence", note.sequence}, {"sha256", wire::base64_encode(note.sha256)}};
  std::error_code ec;
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), ec);
  return config::write_file_atomically(file, json::serialize(state) + "\n");
}

signed_read failed(std::string why) {
  signed_read out;
  out.catalog.error = std::move(why);
  return out;
}

signed_read refused(trust::refusal r) {
  signed_read out;
  out.refused = std::move(r);
  return out;
}

}  // namespace

signed_read read_signed_catalog(http::client& client, const signed_source& source, const read_limits& limits, std::int64_t now_ms) {
  auto deadline = std::chrono::steady_clock::now() + limits.deadline;
  auto keys = get(client, http::endpoint_url(source.discovery_url, "/discovery/catalog/keys.note"), deadline, note_budget);
  if (!keys) return failed("the keys note could not be read: " + keys.error().reason);
  auto note = get(client, http::endpoint_url(source.discovery_url, "/discovery/catalog/note"), deadline, note_budget);
  if (!note) return failed("the catalog note could not be read: " + note.error().reason);
  auto verdict = trust::verify_notes(source.root, *keys, *note, now_ms);
  if (verdict.refused) return refused(std::move(*verdict.refused));
  auto& statement = verdict.notes->catalog;
  auto state = read_state(source.state_file);
  if (!state) return failed("the agent's state: " + state.error().reason);
  auto before = recall(*state, source.state_file, statement.origin);
  if (!before) return failed("the agent's state: " + before.error().reason);
  if (auto r = trust::check_history(*before, statement)) return refused(std::move(*r));
  if (statement.size > limits.budget)
    return failed("the signed catalog is " + std::to_string(statement.size) + " bytes, more than the run's budget of " +
                  std::to_string(limits.budget));
  auto base = source.mirror_url.empty() ? http::endpoint_url(source.discovery_url, "/discovery/catalog") : source.mirror_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  auto url = base + "/" + trust::catalog_file_name(statement.sha256);
  auto bytes = get(client, url, deadline, statement.size + header_allowance);
  if (!bytes && bytes.error().code == errc::body_too_large)
    return refused({trust::check::catalog_bytes, "the catalog at " + url + " is larger than the note's " + std::to_string(statement.size) + " bytes"});
  if (!bytes) return failed("the catalog could not be read: " + bytes.error().reason);
  if (auto r = trust::verify_bytes(statement, *bytes)) return refused(std::move(*r));
  auto page = parse_catalog_page(*bytes);
  if (page.error) return failed("the signed catalog is not a catalog: " + *page.error);
  if (auto saved = remember(std::move(*state), source.state_file, statement); !saved) return failed("the agent's state: " + saved.error().reason);
  signed_read out;
  out.catalog.pages = 1;
  out.catalog.bytes = bytes->size();
  for (auto& v : page.entries) {
    if (!v.is_object()) continue;
    if (out.catalog.items.size() >= limits.max_resources) {
      out.catalog.capped = true;
      break;
    }
    out.catalog.items.push_back(std::move(v.get_object()));
  }
  out.note = std::move(statement);
  return out;
}

std::filesystem::path default_state_file() {
  if (auto* xdg = std::getenv("XDG_STATE_HOME"); xdg && *xdg) return std::filesystem::path{xdg} / "z402-discover" / "catalogs.json";
  auto* home = std::getenv("HOME");
  return std::filesystem::path{home && *home ? home : "."} / ".local" / "state" / "z402-discover" / "catalogs.json";
}

}  // namespace z402::agent
