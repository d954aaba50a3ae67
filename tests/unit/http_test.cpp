#define CAF_SUITE http
#include "test.hpp"

#include "http/byte_budget.hpp"
#include "z402/http/io_pool.hpp"

#include <boost/asio/post.hpp>

#include <optional>
#include <thread>
#include <vector>

using namespace z402;

namespace {

/// Records which acquisitions were let in, in order, and keeps what they hold.
struct admissions {
  std::vector<int> order;
  std::vector<std::optional<http::byte_budget::held>> held = std::vector<std::optional<http::byte_budget::held>>(8);
  auto admit(int who) {
    return [this, who](http::byte_budget::held h) {
      order.push_back(who);
      held[static_cast<std::size_t>(who)] = std::move(h);
    };
  }
};

}  // namespace

CAF_TEST(a budget lets bodies in up to its capacity and holds the next until room is given back) {
  http::byte_budget budget{100};
  admissions a;
  budget.acquire(60, a.admit(0));
  budget.acquire(40, a.admit(1));  // at the limit: 100 of 100
  CAF_CHECK_EQUAL(a.order, (std::vector<int>{0, 1}));
  CAF_CHECK_EQUAL(budget.held_bytes(), 100u);
  budget.acquire(1, a.admit(2));  // past it by one byte
  CAF_CHECK_EQUAL(a.order.size(), 2u);
  CAF_CHECK_EQUAL(budget.waiting(), 1u);
  CAF_CHECK_EQUAL(budget.waited(), 1u);
  a.held[1]->reset();  // 40 back: the waiter is let in on this thread
  CAF_CHECK_EQUAL(a.order, (std::vector<int>{0, 1, 2}));
  CAF_CHECK_EQUAL(budget.held_bytes(), 61u);
  CAF_CHECK_EQUAL(budget.waiting(), 0u);
  a.held[0].reset();
  a.held[2].reset();
  CAF_CHECK_EQUAL(budget.held_bytes(), 0u);
}

CAF_TEST(a budget lets waiters in first come first served so a large body is not passed over) {
  http::byte_budget budget{100};
  admissions a;
  budget.acquire(90, a.admit(0));
  budget.acquire(50, a.admit(1));  // waits for room
  budget.acquire(5, a.admit(2));   // would fit, but comes after a waiter
  CAF_CHECK_EQUAL(a.order, (std::vector<int>{0}));
  CAF_CHECK_EQUAL(budget.waited(), 2u);
  a.held[0].reset();  // both fit now: let in in order
  CAF_CHECK_EQUAL(a.order, (std::vector<int>{0, 1, 2}));
  CAF_CHECK_EQUAL(budget.held_bytes(), 55u);
}

CAF_TEST(a body larger than the whole budget is let in alone) {
  http::byte_budget budget{100};
  admissions a;
  budget.acquire(250, a.admit(0));  // nothing held: in at once
  CAF_CHECK_EQUAL(a.order, (std::vector<int>{0}));
  budget.acquire(1, a.admit(1));  // nothing fits beside it
  CAF_CHECK_EQUAL(a.order.size(), 1u);
  a.held[0].reset();
  CAF_CHECK_EQUAL(a.order, (std::vector<int>{0, 1}));
  budget.acquire(101, a.admit(2));  // past the capacity while something is held: waits
  CAF_CHECK_EQUAL(a.order.size(), 2u);
  a.held[1].reset();
  CAF_CHECK_EQUAL(a.order, (std::vector<int>{0, 1, 2}));
  CAF_CHECK_EQUAL(budget.held_bytes(), 101u);
}

CAF_TEST(held bytes move with their holder and are given back once) {
  http::byte_budget budget{10};
  std::optional<http::byte_budget::held> first;
  budget.acquire(10, [&](http::byte_budget::held h) { first = std::move(h); });
  http::byte_budget::held moved = std::move(*first);
  CAF_CHECK_EQUAL(first->bytes(), 0u);
  CAF_CHECK_EQUAL(moved.bytes(), 10u);
  first.reset();  // the moved-from holder gives nothing back
  CAF_CHECK_EQUAL(budget.held_bytes(), 10u);
  http::byte_budget::held other;
  other = std::move(moved);
  moved.reset();
  CAF_CHECK_EQUAL(budget.held_bytes(), 10u);
  other.reset();
  other.reset();
  CAF_CHECK_EQUAL(budget.held_bytes(), 0u);
}

CAF_TEST(a waiter let in may acquire again from its callback) {
  http::byte_budget budget{10};
  std::optional<http::byte_budget::held> first, second, third;
  budget.acquire(10, [&](http::byte_budget::held h) { first = std::move(h); });
  budget.acquire(5, [&](http::byte_budget::held h) {
    second = std::move(h);
    budget.acquire(5, [&](http::byte_budget::held h2) { third = std::move(h2); });
  });
  first.reset();
  CAF_CHECK(second.has_value());
  CAF_CHECK(third.has_value());
  CAF_CHECK_EQUAL(budget.held_bytes(), 10u);
}

// serve's exit order: the actors' last answers, posted once the io threads have stopped, run
// in run_posted while what they call back into still lives, and so does what they post on.
CAF_TEST(what is posted to a stopped io pool runs in run_posted with what it posts to another context) {
  http::io_pool pool{2};
  std::thread runner{[&] { pool.run(); }};
  pool.stop();
  runner.join();
  auto& first = pool.main();
  auto* other = &pool.next();
  if (other == &first) other = &pool.next();  // the context that is not main()
  auto& second = *other;
  CAF_REQUIRE(&second != &first);
  std::vector<int> ran;
  boost::asio::post(first, [&] {
    ran.push_back(1);
    boost::asio::post(second, [&] {
      ran.push_back(2);
      boost::asio::post(first, [&] { ran.push_back(3); });
    });
  });
  CAF_CHECK(ran.empty());  // the pool is stopped: nothing runs on its own
  pool.run_posted();
  CAF_CHECK_EQUAL(ran, (std::vector<int>{1, 2, 3}));
  pool.run_posted();  // nothing left: it returns at once
  CAF_CHECK_EQUAL(ran.size(), 3u);
}
