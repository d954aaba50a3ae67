#include "z402/http/io_pool.hpp"

#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <thread>

namespace z402::http {
namespace {

// sendfile has no MSG_NOSIGNAL: to a peer that has gone it raises SIGPIPE, which ends the
// process. An io thread blocks SIGPIPE while it runs (a library leaves the process's signal
// dispositions alone, and the signal is sent to the thread that wrote); before unblocking, it
// takes the one a closed socket left pending.
class sigpipe_blocked {
 public:
  sigpipe_blocked() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_, &before_);
  }
  ~sigpipe_blocked() {
    timespec now{};
    while (sigtimedwait(&pipe_, nullptr, &now) == SIGPIPE) {
    }
    pthread_sigmask(SIG_SETMASK, &before_, nullptr);
  }
  sigpipe_blocked(const sigpipe_blocked&) = delete;
  sigpipe_blocked& operator=(const sigpipe_blocked&) = delete;

 private:
  sigset_t pipe_{}, before_{};
};

void run_context(boost::asio::io_context& ctx) {
  sigpipe_blocked blocked;
  ctx.run();
}

}  // namespace

io_pool::io_pool(std::size_t threads) {
  for (std::size_t i = 0; i < std::max<std::size_t>(threads, 1); ++i) {
    // Hint 1: one thread runs this context, so its scheduler keeps handlers posted from that
    // thread in a private queue; posts from other threads (actors' answers) still lock.
    contexts_.push_back(std::make_unique<boost::asio::io_context>(1));
    guards_.push_back(boost::asio::make_work_guard(*contexts_.back()));
  }
}

boost::asio::io_context& io_pool::next() {
  auto& ctx = *contexts_[next_];
  next_ = (next_ + 1) % contexts_.size();
  return ctx;
}

void io_pool::run() {
  std::vector<std::thread> threads;
  for (std::size_t i = 1; i < contexts_.size(); ++i) threads.emplace_back([ctx = contexts_[i].get()] { run_context(*ctx); });
  run_context(*contexts_.front());
  for (auto& t : threads) t.join();
}

void io_pool::stop() {
  for (auto& ctx : contexts_) ctx->stop();
}

void io_pool::run_posted() {
  sigpipe_blocked blocked;
  // A handler on one context may post to another: until a round runs nothing.
  for (std::size_t ran = 1; ran != 0;) {
    ran = 0;
    for (auto& ctx : contexts_) {
      ctx->restart();
      ran += ctx->poll();
    }
  }
}

}  // namespace z402::http
