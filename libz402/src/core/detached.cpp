#include "core/detached.hpp"

#include <openssl/crypto.h>

namespace z402 {

void release_thread_crypto() noexcept { OPENSSL_thread_stop(); }

}  // namespace z402
