#include "bazaar/startup.hpp"

#include "z402/config/atomic_file.hpp"
#include "z402/wire/iso_time.hpp"

#include <sys/resource.h>

#include <algorithm>

namespace z402::startup {

expected<void> prepare_data_dir(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return error{errc::io_error, "dataDir", "cannot create the data dir: " + ec.message() + " (" + dir.string() + ")"};
  auto probe = dir / ".z402-write-check";
  if (auto written = config::write_file_atomically(probe, ""); !written)
    return error{errc::io_error, "dataDir", "the data dir cannot be written: " + written.error().reason};
  std::filesystem::remove(probe, ec);
  return {};
}

expected<auth::keyring_file> read_keyring(const std::filesystem::path& data_dir) {
  return auth::read_keyring_file(auth::keyring_path(data_dir));
}

expected<std::size_t> connection_limit(std::size_t configured) {
  constexpr std::size_t reserved_fds = 64;  // catalog and key files, the log, epoll, the actors' pipes
  rlimit fds{};
  ::getrlimit(RLIMIT_NOFILE, &fds);
  auto soft = fds.rlim_cur == RLIM_INFINITY ? std::size_t{1} << 20 : static_cast<std::size_t>(fds.rlim_cur);
  if (configured == 0) return std::max<std::size_t>(1, soft / 4 * 3);
  if (configured + reserved_fds > soft)
    return refused("maxConnections", "the connection limit is above what the fd limit allows: raise the fd limit (ulimit -n, "
                                     "LimitNOFILE) or lower the connection limit (" + std::to_string(configured) +
                                         " connections, fd limit " + std::to_string(soft) + ")");
  return configured;
}

catalog::catalog_load load_catalog_records(const std::filesystem::path& file, const auth::keyring& keys, std::int64_t now,
                                          const telemetry::logger& log) {
  auto loaded = catalog::load_catalog(file, now);
  if (loaded.state == catalog::catalog_load::status::corrupt)
    log.error("the catalog file " + file.string() + " is corrupt (" + loaded.problem + "); moved aside to " +
              loaded.moved_aside.string() + "; starting with an empty catalog that the next heartbeats rebuild");
  if (!loaded.journal_problem.empty())
    log.error("the catalog journal " + catalog::journal_path(file).string() + " is corrupt (" + loaded.journal_problem +
              "); moved aside to " + loaded.journal_moved_aside.string() +
              "; starting from the catalog file alone, which the next heartbeats bring up to date");
  auto dropped = std::erase_if(loaded.records, [&](auto& r) { return keys.find(r.provider) == nullptr; });
  // A follower resumes whatever its own clock's day: it renders what it loaded for the day its
  // primary rendered it for (engine_options::initial_day), and the changes since say the rest.
  // Day 0: its items render as they are for no one day (rendered_day_of), so it takes a copy.
  if (dropped || loaded.position.day == 0) loaded.position = {};
  return loaded;
}

expected<std::optional<catalog::engine_options::signing_setup>> signing_of(const config::bazaar_config& cfg, std::int64_t now_ms,
                                                                             const telemetry::logger& log) {
  using setup = std::optional<catalog::engine_options::signing_setup>;
  auto files = config::signing_files_in(cfg.data_dir);
  std::error_code ec;
  if (!std::filesystem::exists(files.keys_note, ec)) {
    if (std::filesystem::exists(files.online_key, ec))
      log.warning("an online catalog key but no keys note: the catalog is not signed (z402-bazaar catalog-key delegate)",
                  {{"file", files.keys_note.string()}});
    return setup{};
  }
  if (cfg.follow) {
    log.info("a follower serves its primary's signed catalog; its own keys note is not used", {{"file", files.keys_note.string()}});
    return setup{};
  }
  auto keys = config::load_signing_keys(files, now_ms);
  if (!keys) return keys.error();
  auto sequence = config::read_sequence(files.sequence);
  if (!sequence) return sequence.error();
  constexpr std::int64_t warn_ms = 14LL * 24 * 3600 * 1000;
  if (keys->keys.expires_ms - now_ms < warn_ms)
    log.warning("the catalog's keys note expires within 14 days; sign a new one with the root key (z402-bazaar catalog-key delegate)",
                {{"expires", wire::format_iso_ms(keys->keys.expires_ms)}});
  log.info("the catalog is signed", {{"origin", keys->keys.origin},
                                     {"onlineKey", keys->online.verifier().text()},
                                     {"keysExpire", wire::format_iso_ms(keys->keys.expires_ms)},
                                     {"lastSequence", std::to_string(*sequence)}});
  return setup{catalog::engine_options::signing_setup{std::move(files), std::move(*keys), *sequence}};
}

catalog::payee_map payees_of(const auth::keyring& keys) {
  catalog::payee_map payees;
  for (auto& p : keys.providers) payees.emplace(p.pay_to, p.name);
  return payees;
}

}  // namespace z402::startup
