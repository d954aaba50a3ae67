#pragma once
// Settles that arrive within one turn of the io loop cross to the engine as one message: the
// CAF worker is woken once per turn instead of once per request (settles over HTTP in
// benchmarks/results/latest.md; profile.md shows where their time goes).
#include "z402/catalog/engine.hpp"

#include <boost/asio/io_context.hpp>

#include <mutex>

namespace z402::routes {

class settle_batcher {
 public:
  settle_batcher(boost::asio::io_context& ioc, catalog::engine& engine) : ioc_(ioc), engine_(engine) {}

  /// Queues the event; the batch leaves once the handlers ready now have run.
  void add(rules::settlement event, catalog::settle_completion done);

 private:
  void flush();

  boost::asio::io_context& ioc_;
  catalog::engine& engine_;
  std::mutex mutex_;  // io threads add, one of them flushes
  catalog::settle_batch events_;
  catalog::settle_answers answers_;
  bool flush_posted_ = false;
};

}  // namespace z402::routes
