#include "z402/catalog/persistence_actor.hpp"

#include "z402/catalog/catalog_file.hpp"
#include "z402/config/atomic_file.hpp"


namespace z402::catalog {
namespace {

bool write_latest(persistence_actor* self) {
  auto& st = self->state;
  st.writes.acted(self->clock().now());
  if (!st.latest || st.latest->version == st.written_version) return true;
  auto& snap = *st.latest;
  if (auto err = config::write_file_atomically(st.file, [&](const config::chunk_sink& sink) { serialize_catalog(snap, sink); })) {
    st.ctx.stats->save_failures.fetch_add(1, std::memory_order_relaxed);
    st.ctx.log.error("catalog not saved", {{"reason", *err}, {"file", st.file.string()}});
    return false;
  }
  st.ctx.stats->last_saved_ms.store(st.ctx.clock->now_ms(), std::memory_order_relaxed);
  st.written_version = st.latest->version;
  return true;
}

}  // namespace

caf::behavior persistence(persistence_actor* self, std::filesystem::path file, std::chrono::milliseconds interval,
                          engine_context ctx) {
  self->state.file = std::move(file);
  self->state.ctx = std::move(ctx);
  self->state.ctx.log = self->state.ctx.log.with_component("catalog.persistence");
  self->state.writes = coalescer{interval};
  return {
      [=](atom::persist, const snapshot_ptr& snap) {
        self->state.latest = snap;
        if (self->state.writes.changed(self, atom::write::value)) write_latest(self);
      },
      [=](atom::write) {
        self->state.writes.woke();
        write_latest(self);
      },
      [=](atom::flush) { return write_latest(self); },
  };
}

}  // namespace z402::catalog
