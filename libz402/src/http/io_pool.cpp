#include "z402/http/io_pool.hpp"

#include <algorithm>
#include <thread>

namespace z402::http {

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
  for (std::size_t i = 1; i < contexts_.size(); ++i) threads.emplace_back([ctx = contexts_[i].get()] { ctx->run(); });
  contexts_.front()->run();
  for (auto& t : threads) t.join();
}

void io_pool::stop() {
  for (auto& ctx : contexts_) ctx->stop();
}

}  // namespace z402::http
