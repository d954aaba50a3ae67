#include "routes/settle_batcher.hpp"

#include <boost/asio/post.hpp>

namespace z402::routes {

void settle_batcher::add(rules::settlement event, catalog::settle_completion done) {
  std::lock_guard<std::mutex> guard{mutex_};
  events_.push_back(std::move(event));
  answers_.push_back(std::move(done));
  if (!flush_posted_) {
    flush_posted_ = true;
    boost::asio::post(ioc_, [this] { flush(); });
  }
}

void settle_batcher::flush() {
  catalog::settle_batch events;
  catalog::settle_answers answers;
  {
    std::lock_guard<std::mutex> guard{mutex_};
    events.swap(events_);
    answers.swap(answers_);
    flush_posted_ = false;
  }
  engine_.settle(std::move(events), std::move(answers));
}

}  // namespace z402::routes
