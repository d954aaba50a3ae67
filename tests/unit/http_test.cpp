#define CAF_SUITE http
#include "test.hpp"

#include "http/byte_budget.hpp"
#include "http/connection_deadlines.hpp"
#include "z402/http/io_pool.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>

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

// The lists keep each duration's links in expiry order, whatever order they were armed and
// re-armed in, and a passed deadline is taken once.
CAF_TEST(deadline lists take what passed earliest first and forget what was disarmed or moved) {
  using namespace std::chrono_literals;
  boost::asio::io_context context;
  boost::asio::ip::tcp::socket sa{context}, sb{context}, sc{context};
  http::deadline_link a{sa}, b{sb}, c{sc};
  http::deadline_lists lists;
  auto t0 = std::chrono::steady_clock::time_point{} + 1h;
  CAF_CHECK(lists.earliest() == std::chrono::steady_clock::time_point::max());
  lists.arm(a, t0, 10s);
  lists.arm(b, t0 + 1s, 10s);
  lists.arm(c, t0 + 2s, 5s);
  CAF_CHECK(a.armed() && b.armed() && c.armed());
  CAF_CHECK(lists.earliest() == t0 + 7s);  // c's, in a list of its own
  std::vector<http::deadline_link*> passed;
  auto take = [&](std::chrono::steady_clock::time_point now) {
    passed.clear();
    lists.take_passed(now, [&](http::deadline_link& l) { passed.push_back(&l); });
  };
  take(t0 + 7s - 1ms);
  CAF_CHECK(passed.empty());  // not before its deadline
  take(t0 + 7s);
  CAF_CHECK(passed == std::vector<http::deadline_link*>{&c});
  CAF_CHECK(!c.armed());
  lists.arm(a, t0 + 3s, 10s);  // moved behind b
  CAF_CHECK(lists.earliest() == t0 + 11s);
  take(t0 + 12s);
  CAF_CHECK(passed == std::vector<http::deadline_link*>{&b});
  lists.arm(a, t0 + 4s, 10s);  // armed again while armed: one place, the later deadline
  lists.disarm(a);
  lists.disarm(a);  // disarming a disarmed link changes nothing
  CAF_CHECK(!a.armed());
  CAF_CHECK(lists.earliest() == std::chrono::steady_clock::time_point::max());
  take(t0 + 1h);
  CAF_CHECK(passed.empty());
  lists.arm(a, t0 + 5s, 10s);
  lists.arm(b, t0 + 5s, 10s);
  lists.clear();
  CAF_CHECK(!a.armed() && !b.armed());
  take(t0 + 1h);
  CAF_CHECK(passed.empty());
}

// On a context: a deadline that passes cancels the wait it bounds; one disarmed before it
// passes cancels nothing, however long the context runs.
CAF_TEST(a passed connection deadline cancels the wait it bounds and a disarmed one never does) {
  using namespace std::chrono_literals;
  using tcp = boost::asio::ip::tcp;
  boost::asio::io_context context;
  tcp::acceptor acceptor{context, tcp::endpoint{boost::asio::ip::make_address("127.0.0.1"), 0}};
  std::vector<tcp::socket> clients, servers;
  for (int i = 0; i < 2; ++i) {
    clients.emplace_back(context);
    clients.back().connect(acceptor.local_endpoint());
    servers.push_back(acceptor.accept());
  }
  auto& deadlines = boost::asio::use_service<http::connection_deadlines>(context);
  http::deadline_link bounded{servers[0]}, disarmed{servers[1]};
  std::optional<boost::system::error_code> first, second;
  deadlines.arm(bounded, 20ms);
  servers[0].async_wait(tcp::socket::wait_read, [&](boost::system::error_code ec) { first = ec; });
  deadlines.arm(disarmed, 20ms);
  servers[1].async_wait(tcp::socket::wait_read, [&](boost::system::error_code ec) { second = ec; });
  deadlines.disarm(disarmed);
  for (int turns = 0; !first && turns < 100; ++turns) context.run_for(50ms);
  CAF_REQUIRE(first.has_value());
  CAF_CHECK(*first == boost::asio::error::operation_aborted);
  CAF_CHECK(!bounded.armed());
  context.run_for(100ms);
  CAF_CHECK(!second.has_value());  // still waiting: nothing bounds it
  // What it waits for comes: the wait completes as any would.
  boost::asio::write(clients[1], boost::asio::buffer("x", 1));
  for (int turns = 0; !second && turns < 100; ++turns) context.run_for(50ms);
  CAF_REQUIRE(second.has_value());
  CAF_CHECK(!*second);
}
