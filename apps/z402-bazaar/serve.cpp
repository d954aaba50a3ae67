// `z402-bazaar serve`: the library's whole Bazaar (z402/bazaar.hpp) in this process's actor
// system, with what belongs to a process and not to a library: the log on stderr, the scheduler
// and the allocator's tuning, and the signals (SIGINT or SIGTERM stop it gracefully, SIGHUP
// re-reads the TLS certificate).
#include "commands.hpp"

#include "z402/bazaar.hpp"

#include <caf/all.hpp>

#include <pthread.h>
#include <signal.h>

#include <ctime>

#ifdef Z402_WITH_TCMALLOC
#include <gperftools/malloc_extension.h>
#endif

namespace z402::app {
namespace {

// tcmalloc keeps freed memory in per-thread caches (up to 32 MB in all) and its page heap.
// Smaller caches and free pages given back to the system on a 250 ms beat cut peak RSS with a
// full catalog under load by a tenth; returning each span as it empties
// (tcmalloc.aggressive_memory_decommit) faulted a page per response for some heap layouts and
// cost a quarter of the search throughput at 65,536 items (benchmarks/results/profile.md).
constexpr timespec release_interval{0, 250'000'000};

void bound_allocator_caches() {
#ifdef Z402_WITH_TCMALLOC
  MallocExtension::instance()->SetNumericProperty("tcmalloc.max_total_thread_cache_bytes", 1u << 20);
#endif
}

void return_free_memory() {
#ifdef Z402_WITH_TCMALLOC
  MallocExtension::instance()->ReleaseFreeMemory();
#endif
}

/// SIGINT, SIGTERM and SIGHUP, blocked in every thread (the mask is inherited by the threads
/// made after it) and taken by the main thread with sigtimedwait.
sigset_t control_signals() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, s);
  return set;
}

}  // namespace

int serve(const config::bazaar_config& cfg, telemetry::log_format format) {
  telemetry::logger log{std::make_shared<telemetry::stream_sink>(stderr, format, "z402-bazaar"), "server"};
  auto signals = control_signals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  bound_allocator_caches();

  caf::actor_system_config caf_cfg;
  caf_cfg.set("scheduler.max-threads", cfg.actor_threads);
  // Work stealing's idle workers sleep-poll in 50 us steps, which on two cores costs a context
  // switch per step and delays messages from the io threads; the sharing policy blocks on a
  // condition variable and wakes on enqueue (benchmarks/results/profile.md).
  caf_cfg.set("scheduler.policy", caf::atom("sharing"));
  auto setup = bazaar_setup::prepare(caf_cfg, cfg);
  if (!setup) {
    log.error(setup.error().reason, {{"field", setup.error().field}});
    return 1;
  }
  caf::actor_system sys{caf_cfg};
  auto running = bazaar::start(sys, cfg, *setup, log);
  if (!running) return 1;  // start said why
  // Said once the signals are blocked: whoever waits for the "listening on" line may signal.
  for (;;) {
    int signal = sigtimedwait(&signals, nullptr, &release_interval);
    if (signal == SIGHUP) (*running)->reload_certificate();
    else if (signal == SIGINT || signal == SIGTERM) break;
    else return_free_memory();
  }
  return (*running)->stop() ? 0 : 1;
}

}  // namespace z402::app
