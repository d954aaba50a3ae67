#include "http/connection_deadlines.hpp"

#include <algorithm>

namespace z402::http {

deadline_lists::clock::time_point deadline_lists::arm(deadline_link& link, clock::time_point now, clock::duration timeout) {
  disarm(link);
  auto list = std::find_if(lists_.begin(), lists_.end(), [&](const deadline_list& l) { return l.timeout == timeout; });
  if (list == lists_.end()) list = lists_.insert(lists_.end(), deadline_list{timeout});
  link.expiry_ = now + timeout;
  link.list_ = &*list;
  link.prev_ = list->tail;
  link.next_ = nullptr;
  (list->tail ? list->tail->next_ : list->head) = &link;
  list->tail = &link;
  return link.expiry_;
}

void deadline_link::unlink() {
  if (!list_) return;
  (prev_ ? prev_->next_ : list_->head) = next_;
  (next_ ? next_->prev_ : list_->tail) = prev_;
  prev_ = next_ = nullptr;
  list_ = nullptr;
}

deadline_lists::clock::time_point deadline_lists::earliest() const {
  auto at = clock::time_point::max();
  for (auto& list : lists_)
    if (list.head) at = std::min(at, list.head->expiry_);
  return at;
}

void deadline_lists::clear() {
  for (auto& list : lists_)
    while (list.head) disarm(*list.head);
}

boost::asio::execution_context::id connection_deadlines::id;

connection_deadlines::connection_deadlines(boost::asio::io_context& context)
    : boost::asio::execution_context::service(context), timer_(context) {}

void connection_deadlines::arm(deadline_link& link, std::chrono::steady_clock::duration timeout) {
  // The timer fires no later than every armed deadline (a disarmed one only lets it fire early,
  // and it then sleeps until the earliest): only the new deadline can come before it.
  wake_at(lists_.arm(link, std::chrono::steady_clock::now(), timeout));
}

void connection_deadlines::wake_at(std::chrono::steady_clock::time_point at) {
  if (at >= timer_at_) return;
  timer_at_ = at;
  timer_.expires_at(at);
  timer_.async_wait([this](boost::system::error_code ec) {
    if (ec) return;  // moved earlier (a newer wait is pending) or shut down
    on_timer();
  });
}

void connection_deadlines::on_timer() {
  timer_at_ = std::chrono::steady_clock::time_point::max();
  lists_.take_passed(std::chrono::steady_clock::now(), [](deadline_link& link) {
    boost::system::error_code ignored;  // a socket already closed has nothing to cancel
    link.socket().cancel(ignored);
  });
  // The heads were mostly re-armed since the timer was set: it sleeps until the earliest now.
  wake_at(lists_.earliest());
}

void connection_deadlines::shutdown() {
  lists_.clear();
  timer_at_ = std::chrono::steady_clock::time_point::min();  // nothing arms the timer again
  timer_.cancel();
}

}  // namespace z402::http
