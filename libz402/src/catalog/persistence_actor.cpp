#include "catalog/persistence_actor.hpp"

#include "catalog/payment_file.hpp"
#include "z402/catalog/serialization.hpp"
#include "z402/config/atomic_file.hpp"

namespace z402::catalog {
namespace {

using self_ptr = persistence_actor::stateful_pointer<persistence_state>;

constexpr std::chrono::milliseconds first_retry{250};
constexpr std::chrono::milliseconds max_retry{5000};
constexpr std::chrono::minutes failure_log_interval{1};

void failed(self_ptr self, const std::string& why) {
  auto& st = self->state;
  auto& stats = *st.ctx.stats;
  stats.save_failures.fetch_add(1, std::memory_order_relaxed);
  stats.last_save_error.store(std::make_shared<const std::string>(why), std::memory_order_release);
  bool first = st.failing_since_ms == 0;
  if (first) {
    st.failing_since_ms = st.ctx.clock->now_ms();
    stats.save_failing_since_ms.store(st.failing_since_ms, std::memory_order_release);
  }
  ++st.unlogged_failures;
  auto now = self->clock().now();
  if (first || now - st.last_failure_log >= failure_log_interval) {
    st.ctx.log.error("catalog not saved; retrying",
                     {{"reason", why}, {"file", st.file.string()}, {"failures", st.unlogged_failures}});
    st.last_failure_log = now;
    st.unlogged_failures = 0;
  }
  if (st.retry_armed) return;  // a coalesced write failed while a retry waits: that retry covers it
  st.retry_delay = st.retry_delay.count() == 0 ? first_retry : std::min(st.retry_delay * 2, max_retry);
  st.retry_armed = true;
  self->delayed_send(self, st.retry_delay, atom::retry::value);
}

void saved(self_ptr self) {
  auto& st = self->state;
  auto now = st.ctx.clock->now_ms();
  if (st.failing_since_ms != 0) {
    st.ctx.log.info("catalog saved again", {{"failingForMs", now - st.failing_since_ms}, {"file", st.file.string()}});
    st.failing_since_ms = 0;
    st.ctx.stats->save_failing_since_ms.store(0, std::memory_order_release);
  }
  st.retry_delay = std::chrono::milliseconds{0};
  st.unlogged_failures = 0;
  st.ctx.stats->last_saved_ms.store(now, std::memory_order_relaxed);
}

// A file grown past twice what a load keeps is rewritten with only that (at most once per
// `capacity` payments counted, off every other actor's thread). A failed rewrite keeps the
// longer file, which loads the same.
void compact_payments(self_ptr self) {
  auto& st = self->state;
  auto& limits = st.ctx.limits;
  if (st.payments.records <= 2 * limits.max_remembered_payments) return;
  auto kept = load_payments(st.payments.file, st.ctx.clock->now_ms(), limits.payment_memory.count(), limits.max_remembered_payments);
  if (kept.state != payments_load::status::loaded) return;
  if (auto rewritten = rewrite_payments(st.payments.file, kept.records); !rewritten) {
    st.ctx.log.warning("payments file not compacted", {{"reason", rewritten.error().reason}});
    return;
  }
  st.payments.records = kept.records.size();
  st.payments.good_bytes = payment_file_header_bytes + kept.records.size() * payment_record_bytes;
}

// The payments before the counts that include them (payment_file.hpp).
expected<void> save_payments(self_ptr self) {
  auto& st = self->state;
  if (st.unsaved_payments.empty() || st.payments.file.empty()) return {};
  auto appended = append_payments(st.payments.file, st.payments.good_bytes, st.unsaved_payments);
  if (!appended) {
    failed(self, appended.error().reason);
    return appended.error();
  }
  st.payments.records += st.unsaved_payments.size();
  st.unsaved_payments.clear();
  compact_payments(self);
  return {};
}

// The catalog file, then a journal that names it. Until the new journal is in place the old
// one names the file before, and a load leaves it unread.
expected<void> write_whole(self_ptr self, const snapshot& snap) {
  auto& st = self->state;
  std::uint64_t bytes = 0;
  auto written = config::write_file_atomically(st.file, [&](const config::chunk_sink& sink) {
    serialize_catalog(snap, [&](std::string_view chunk) {
      bytes += chunk.size();
      sink(chunk);
    });
  });
  if (!written) return written;
  auto head = journal_head(snap);
  if (auto started = config::write_file_atomically(journal_path(st.file), head); !started) return started;
  st.saved = saved_form(snap);
  st.file_bytes = bytes;
  st.journal_bytes = st.journal_head_bytes = head.size();
  return {};
}

// What changed since the last save, appended to the journal.
expected<void> append_changes(self_ptr self, const snapshot& snap) {
  auto& st = self->state;
  auto appended = config::append_durably(journal_path(st.file), st.journal_bytes,
                                         [&](const config::chunk_sink& sink) { journal_batch(st.saved, snap, st.next_saved, sink); });
  if (!appended) return appended;
  st.saved.swap(st.next_saved);
  st.next_saved.clear();  // the contents the save replaced are let go now, not a save later
  return {};
}

// Saves the newest snapshot if it is not on disk; `fold`: in the catalog file alone. The error
// is the save's (it is in the stats too, and retried).
expected<void> write_latest(self_ptr self, bool fold = false) {
  auto& st = self->state;
  st.writes.acted(self->clock().now());
  if (!st.latest) return {};
  bool journaled = st.journal_bytes > st.journal_head_bytes;
  if (st.latest->version == st.written_version && !(fold && journaled)) return {};
  if (auto payments = save_payments(self); !payments) return payments;
  auto& snap = *st.latest;
  bool whole = fold || st.journal_bytes == 0 || journal_full(st.journal_bytes, st.file_bytes);
  auto written = whole ? write_whole(self, snap) : append_changes(self, snap);
  if (!written) {
    st.journal_bytes = 0;
    failed(self, written.error().reason);
    return written;
  }
  st.written_version = st.latest->version;
  saved(self);
  return {};
}

}  // namespace

persistence_actor::behavior_type persistence(persistence_actor::stateful_pointer<persistence_state> self,
                                             std::filesystem::path file, std::chrono::milliseconds interval,
                                             engine_context ctx, payments_file_end payments) {
  self->state.file = std::move(file);
  self->state.payments = std::move(payments);
  self->state.ctx = std::move(ctx);
  self->state.ctx.log = self->state.ctx.log.with_component("catalog.persistence");
  self->state.writes = coalescer{interval};
  return {
      [=](atom::persist, const snapshot_ptr& snap) {
        // Every publication comes here in order; only the newest is written, but the payments
        // of each are kept for the next append.
        if (snap->payments)
          self->state.unsaved_payments.insert(self->state.unsaved_payments.end(), snap->payments->begin(), snap->payments->end());
        self->state.latest = snap;
        if (self->state.writes.changed(self, atom::write::value)) write_latest(self);
      },
      [=](atom::write) {
        self->state.writes.woke();
        write_latest(self);
      },
      [=](atom::retry) {
        self->state.retry_armed = false;
        write_latest(self);
      },
      [=](atom::flush) -> caf::result<std::uint64_t> {
        if (auto written = write_latest(self, true); !written) return make_error(written.error());
        return self->state.written_version;
      },
  };
}

}  // namespace z402::catalog
