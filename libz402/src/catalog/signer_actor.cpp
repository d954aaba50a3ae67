#include "catalog/signer_actor.hpp"

#include "z402/core/crypto.hpp"
#include "z402/trust/statements.hpp"

#include <system_error>

namespace z402::catalog {
namespace {

std::filesystem::file_time_type modified(const std::filesystem::path& file) {
  std::error_code ec;
  auto t = std::filesystem::last_write_time(file, ec);
  return ec ? std::filesystem::file_time_type{} : t;
}

/// Reads the key files again when either changed since they were last read.
void reload_keys(signer_state& st) {
  auto key_time = modified(st.files.online_key), note_time = modified(st.files.keys_note);
  if (key_time == st.key_time && note_time == st.note_time) return;
  st.key_time = key_time, st.note_time = note_time;
  auto keys = config::load_signing_keys(st.files, st.ctx.clock->now_ms());
  if (!keys) {
    st.ctx.log.error("catalog signing keys not changed: the new files do not check", {{"reason", keys.error().reason}});
    return;
  }
  st.ctx.log.info("catalog signing keys read", {{"onlineKey", keys->online.verifier().text()}});
  st.keys = std::move(*keys);
}

bool due(const signer_state& st, const snapshot& snap, std::int64_t now) {
  if (st.signed_ms == 0 || now - st.signed_ms >= st.rhythm.resign_after.count()) return true;
  bool changed = snap.epoch != st.signed_epoch || snap.version != st.signed_version;
  return changed && now - st.signed_ms >= st.rhythm.interval.count();
}

void sign_newest(signer_state& st) {
  auto snap = st.snapshots->load();
  auto now = st.ctx.clock->now_ms();
  if (!st.keys || !due(st, *snap, now)) return;
  auto bytes = std::make_shared<const std::string>(whole_catalog(*snap));
  auto sha256 = crypto::sha256_bytes(*bytes);
  auto sequence = st.sequence + 1;
  if (auto saved = config::write_sequence(st.files.sequence, sequence); !saved) {
    // Not signed: a note whose sequence a restart could sign again with other bytes would be
    // an equivocation. The note served keeps its life (10 minutes or more); tried each second.
    if (st.unsaved_sequence_failures++ == 0)
      st.ctx.log.error("catalog not signed: its sequence number could not be saved", {{"reason", saved.error().reason}});
    return;
  }
  st.unsaved_sequence_failures = 0;
  st.sequence = sequence;
  auto expires = now + st.rhythm.validity.count();
  trust::catalog_statement statement{st.keys->keys.origin, sequence, bytes->size(), sha256, expires};
  auto note = trust::sign_note(trust::text_of(statement), st.keys->online);
  if (!note) throw std::logic_error("a catalog note we wrote could not be signed: " + note.error().reason);
  auto pub = make_publication(sequence, expires, std::move(sha256), std::move(*note), st.keys->keys_note, std::move(bytes), st.out->load());
  st.signed_epoch = snap->epoch, st.signed_version = snap->version, st.signed_ms = now;
  st.out->publish(std::move(pub));
}

}  // namespace

signer_actor::behavior_type signer(signer_actor::stateful_pointer<signer_state> self, config::signing_files files,
                                   std::shared_ptr<config::signing_keys> keys, std::uint64_t sequence, signing_rhythm rhythm,
                                   std::shared_ptr<const snapshot_store> snapshots, std::shared_ptr<signed_store> out,
                                   engine_context ctx) {
  auto& st = self->state;
  st.files = std::move(files);
  st.key_time = modified(st.files.online_key), st.note_time = modified(st.files.keys_note);
  st.keys = std::move(*keys);
  st.sequence = sequence;
  st.rhythm = rhythm;
  st.snapshots = std::move(snapshots);
  st.out = std::move(out);
  st.ctx = std::move(ctx);
  st.ctx.log = st.ctx.log.with_component("catalog.signer");
  sign_newest(st);
  self->delayed_send(self, std::chrono::seconds{1}, atom::tick::value);
  return {
      [=](atom::tick) {
        reload_keys(self->state);
        sign_newest(self->state);
        self->delayed_send(self, std::chrono::seconds{1}, atom::tick::value);
      },
  };
}

}  // namespace z402::catalog
