// A detached actor that used OpenSSL, ending just as the process exits, leaks nothing
// (core/detached.hpp says why it could). Only meaningful under LeakSanitizer: the sanitizer run
// fails on any report this process writes. The race is held open on purpose instead of hoping
// for it: the actor's thread lingers 100 ms in a thread-exit destructor that runs before
// OpenSSL's, and `exit` lingers 500 ms after OpenSSL's cleanup, before LeakSanitizer looks. So
// the thread finishes ending after the cleanup, which is when its state used to be lost.
#include "core/detached.hpp"

#include <caf/all.hpp>
#include <openssl/rand.h>
#include <pthread.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace {

pthread_key_t lingering;

// Draws random bytes, which builds this thread's DRBGs, and ends.
caf::behavior draw_and_quit(caf::event_based_actor* self, bool* drew) {
  pthread_setspecific(lingering, self);
  unsigned char bytes[16];
  *drew = RAND_bytes(bytes, sizeof bytes) == 1;
  self->quit();
  return {};
}

}  // namespace

int main() {
  // Both before OpenSSL's first use: this key's destructor runs before OpenSSL's thread-exit
  // one, and this atexit handler after OpenSSL's cleanup (handlers run in reverse order).
  if (pthread_key_create(&lingering, [](void*) { usleep(100'000); }) != 0) return 2;
  std::atexit([] { usleep(500'000); });
  caf::actor_system_config cfg;
  bool drew = false;
  {
    caf::actor_system sys{cfg};
    z402::spawn_detached(sys, draw_and_quit, &drew);
  }
  if (!drew) {
    std::fputs("RAND_bytes failed\n", stderr);
    return 1;
  }
  return 0;
}
