#pragma once
// The deadlines of a context's connections: the wait for a keep-alive connection's next
// request, a request's header and body, a write waiting for room. Each deadline is a link in a
// list of deadlines of one duration, so every list is in expiry order: arming one is a few
// pointer writes at a list's tail, disarming it a few more, and one timer per context waits
// for the earliest head. With an Asio timer per deadline (Beast's stream timer for the header,
// a steady_timer for the wait before it), each request of a crowd of 10,000 keep-alive readers
// went twice through the timer queue's heap, its mutex and a cancelled handler: 1.4-2.2 µs of
// the 16-17 µs the server spent per answer there (benchmarks/results/profile.md, "the crowd's
// deadlines"), where nginx's cost per answer grew by 1.8 µs in all from 64 connections.
//
// Everything here runs on the context's one thread (io_pool: a context per thread): a
// connection arms and disarms its deadlines from its handlers, and a passed deadline cancels its
// socket's operations from the timer's handler.
#include <boost/asio/execution_context.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <deque>

namespace z402::http {

class deadline_lists;

/// One deadline of a connection, embedded in it: when it passes while armed, the operations
/// pending on `socket` are cancelled (they complete with operation_aborted). A connection arms
/// it only while an operation it bounds is pending, whose handler holds the connection, and
/// disarms it in that handler, so it is not armed when the connection ends; the context's
/// shutdown disarms those whose handlers it is about to destroy. Destroyed armed all the same,
/// it leaves its list.
class deadline_link {
 public:
  explicit deadline_link(boost::asio::ip::tcp::socket& socket) : socket_(&socket) {}
  deadline_link(const deadline_link&) = delete;
  deadline_link& operator=(const deadline_link&) = delete;
  ~deadline_link() { unlink(); }

  bool armed() const { return list_ != nullptr; }
  boost::asio::ip::tcp::socket& socket() const { return *socket_; }

 private:
  friend class deadline_lists;
  void unlink();

  boost::asio::ip::tcp::socket* socket_;
  deadline_link* prev_ = nullptr;
  deadline_link* next_ = nullptr;
  struct deadline_list* list_ = nullptr;  // the list it is in, null when disarmed
  std::chrono::steady_clock::time_point expiry_{};
};

/// A list of armed links of one duration, earliest first.
struct deadline_list {
  std::chrono::steady_clock::duration timeout;
  deadline_link* head = nullptr;
  deadline_link* tail = nullptr;
};

/// The lists, given the time by their caller (connection_deadlines reads the clock; tests set it).
class deadline_lists {
 public:
  using clock = std::chrono::steady_clock;

  deadline_lists() = default;
  deadline_lists(const deadline_lists&) = delete;
  deadline_lists& operator=(const deadline_lists&) = delete;

  /// Arms `link` to pass at `now + timeout`, moving it if it was armed; returns that time.
  /// `now` never goes back between calls (a steady clock), which keeps each list in expiry order.
  clock::time_point arm(deadline_link& link, clock::time_point now, clock::duration timeout);
  /// Disarms `link`; nothing when it is not armed.
  void disarm(deadline_link& link) { link.unlink(); }
  /// Disarms every link whose deadline is at or before `now` and calls `passed(link)` for each,
  /// each list's earliest first. `passed` must not arm or disarm links.
  template <class Passed>
  void take_passed(clock::time_point now, Passed passed) {
    for (auto& list : lists_) {
      while (list.head && list.head->expiry_ <= now) {
        auto& link = *list.head;
        disarm(link);
        passed(link);
      }
    }
  }
  /// The earliest armed deadline; time_point::max() when none is armed.
  clock::time_point earliest() const;
  /// Disarms every link.
  void clear();

 private:
  std::deque<deadline_list> lists_;  // one per duration ever armed (a few); a deque keeps their places
};

/// The deadlines of one io_context's connections, as an Asio service of that context.
class connection_deadlines final : public boost::asio::execution_context::service {
 public:
  using key_type = connection_deadlines;
  static boost::asio::execution_context::id id;

  explicit connection_deadlines(boost::asio::io_context& context);

  /// Arms `link` to cancel its socket's operations `timeout` from now (moving it if armed).
  void arm(deadline_link& link, std::chrono::steady_clock::duration timeout);
  /// Disarms `link`; nothing when it is not armed.
  void disarm(deadline_link& link) { lists_.disarm(link); }

 private:
  // Before the context destroys the handlers it still holds (and the connections they keep):
  // their links are disarmed, the lists and the timer let go.
  void shutdown() override;
  // Sets the timer to `at` unless it already fires no later.
  void wake_at(std::chrono::steady_clock::time_point at);
  void on_timer();

  boost::asio::steady_timer timer_;
  std::chrono::steady_clock::time_point timer_at_ = std::chrono::steady_clock::time_point::max();
  deadline_lists lists_;
};

}  // namespace z402::http
