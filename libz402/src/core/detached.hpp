#pragma once
// Detached actors (each on a thread of its own) that leave nothing of OpenSSL's behind.
//
// A thread that touched OpenSSL (a TLS context, a digest, a random byte) holds per-thread state,
// its two DRBGs, which a thread-exit destructor frees. CAF 0.17's private thread counts itself
// done (`dec_detached_threads`) before it ends, so `~actor_system` can return and `exit` run
// OpenSSL's cleanup, which deletes that thread-local key, while the thread is still ending: its
// destructor is then skipped and the state is lost. LeakSanitizer saw exactly that (984 bytes
// direct in 3 objects, all in libcrypto) from the demo service's catalog link on a fresh machine;
// tests/sanitize/detached_exit.cpp holds the window open to show it. The actor's own cleanup runs
// on its thread before that count, so freeing the state there closes the window.
#include <caf/actor_cast.hpp>
#include <caf/actor_system.hpp>
#include <caf/spawn_options.hpp>

#include <utility>

namespace z402 {

/// Frees OpenSSL's state for the calling thread (it is rebuilt if the thread uses OpenSSL again).
void release_thread_crypto() noexcept;

/// `sys.spawn<caf::detached>(xs...)`, with the actor's thread freeing OpenSSL's state as the
/// actor ends. Every detached actor of ours is spawned through here.
template <class... Ts>
auto spawn_detached(caf::actor_system& sys, Ts&&... xs) {
  auto handle = sys.spawn<caf::detached>(std::forward<Ts>(xs)...);
  if (handle) caf::actor_cast<caf::abstract_actor*>(handle)->attach_functor([] { release_thread_crypto(); });
  return handle;
}

}  // namespace z402
