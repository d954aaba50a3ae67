#pragma once
// The io threads: one io_context per thread, as Asio's io_context-per-core design has it. A
// connection is accepted onto one context and only that context's thread runs its handlers,
// so a session needs no strand: no strand lock, no shared strand state copied into every
// handler, no two threads contending for one scheduler (the strand and its executor
// copies were a tenth of a gzip'd read's server time; benchmarks/results/profile.md).
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include <memory>
#include <vector>

namespace z402::http {

class io_pool {
 public:
  /// `threads` contexts (at least one), each run by one thread.
  explicit io_pool(std::size_t threads);

  /// The first context: the listener, timers, signals and whatever is not a connection.
  boost::asio::io_context& main() { return *contexts_.front(); }
  /// The context the next connection lives on, in turn. Called by the listener only.
  boost::asio::io_context& next();
  std::size_t size() const { return contexts_.size(); }

  /// Runs every context, each on a thread of its own (this one runs main()), until stop(),
  /// with SIGPIPE blocked on those threads (a write to a closed socket is an error, not the end
  /// of the process).
  void run();
  /// Stops every context; callable from any thread.
  void stop();
  /// Once run() has returned: runs on this thread what was posted to the contexts since, until
  /// none has more (the last answers of actors that stopped after the io threads), so those
  /// handlers run while the server and the routes they call back into still live.
  void run_posted();

 private:
  using guard = boost::asio::executor_work_guard<boost::asio::io_context::executor_type>;
  std::vector<std::unique_ptr<boost::asio::io_context>> contexts_;
  std::vector<guard> guards_;  // a context with no connection yet keeps running
  std::size_t next_ = 0;
};

}  // namespace z402::http
