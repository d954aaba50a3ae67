#include "load.hpp"

#include "z402/wire/json.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <random>
#include <memory>
#include <thread>

namespace z402::bench {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;
using tcp = net::ip::tcp;
using net::use_awaitable;
using clock_type = std::chrono::steady_clock;

constexpr auto request_timeout = std::chrono::seconds{10};

std::uint64_t micros_since(clock_type::time_point t) {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(clock_type::now() - t).count());
}

/// A keep-alive connection that reconnects after an error.
class connection {
 public:
  connection(net::any_io_executor ex, const load_options& o) : stream_(ex), options_(o), deadline_(ex) {
    // Beast reads at most the free capacity (512 bytes when empty): room for a header and the
    // small answers read whole, and no more, since what it reads with a header is copied.
    buffer_.reserve(4 * 1024);
  }

  /// Sends `req`; the answer's status (0 on a connection error, with `why` set) and, when
  /// `body` is given, its body. Otherwise the body, framed by its Content-Length, is dropped.
  net::awaitable<unsigned> exchange(const bhttp::request<bhttp::string_body>& req, std::string* body, std::string& why) {
    beast::error_code ec;
    why.clear();
    if (!connected_) {
      tcp::resolver resolver{stream_.get_executor()};
      auto endpoints = co_await resolver.async_resolve(options_.host, options_.port, net::redirect_error(use_awaitable, ec));
      stream_.expires_after(request_timeout);
      if (!ec) co_await stream_.async_connect(endpoints, net::redirect_error(use_awaitable, ec));
      if (ec) co_return fail(why, "connect");
      connected_ = true;
    }
    stream_.expires_after(request_timeout);
    co_await bhttp::async_write(stream_, req, net::redirect_error(use_awaitable, ec));
    if (ec) co_return fail(why, ec == beast::error::timeout ? "timeout" : "io");
    unsigned status = 0;
    if (body) {
      bhttp::response_parser<bhttp::string_body> parser;
      parser.body_limit(64u << 20);
      co_await bhttp::async_read(stream_, buffer_, parser, net::redirect_error(use_awaitable, ec));
      if (ec) co_return fail(why, ec == beast::error::timeout ? "timeout" : "io");
      status = parser.get().result_int();
      *body = std::move(parser.get().body());
      keep_ = parser.get().keep_alive();
    } else {
      // The body is dropped, and the kernel drops it: past the bytes that came with the header, it
      // is received with MSG_TRUNC, which TCP discards without copying it out (tcp(7)). The
      // generator shares the cores with the server it measures; a parser's body copied every page
      // twice (kernel -> buffer_ -> sink), and the kernel's copy alone was a quarter of the
      // generator's samples under the write load (profile.md).
      bhttp::response_parser<bhttp::empty_body> parser;
      co_await bhttp::async_read_header(stream_, buffer_, parser, net::redirect_error(use_awaitable, ec));
      if (ec) co_return fail(why, ec == beast::error::timeout ? "timeout" : "io");
      // Every answer of z402-bazaar says its length; one that does not cannot be framed here.
      if (!parser.content_length()) co_return fail(why, "no content-length");
      auto left = *parser.content_length();
      auto buffered = std::min<std::uint64_t>(left, buffer_.size());
      buffer_.consume(buffered);
      left -= buffered;
      // The socket's own receive has no tcp_stream deadline: a timer races it.
      deadline_.expires_after(request_timeout);
      while (left > 0) {
        auto [order, received, n, timer] = co_await net::experimental::make_parallel_group(
            stream_.socket().async_receive(net::buffer(sink_.get(), std::min<std::uint64_t>(left, sink_size)), MSG_TRUNC,
                                           net::deferred),
            deadline_.async_wait(net::deferred)).async_wait(net::experimental::wait_for_one(), use_awaitable);
        if (order[0] == 1) co_return fail(why, "timeout");
        if (received) co_return fail(why, "io");
        left -= n;
      }
      status = parser.get().result_int();
      keep_ = parser.get().keep_alive();
    }
    if (!keep_) close();
    co_return status;
  }

 private:
  unsigned fail(std::string& why, const char* cause) {
    why = cause;
    close();
    return 0;
  }
  void close() {
    beast::error_code ec;
    stream_.socket().close(ec);  // async_connect opens it again
    buffer_.consume(buffer_.size());
    connected_ = false;
  }

  beast::tcp_stream stream_;
  const load_options& options_;
  beast::flat_buffer buffer_;
  net::steady_timer deadline_;
  // The most one discarding receive drops (a 4 MB page takes four): never written, so never resident.
  static constexpr std::size_t sink_size = 1u << 20;
  std::unique_ptr<char[]> sink_{new char[sink_size]};
  bool connected_ = false, keep_ = true;
};

struct probe {
  std::size_t provider;
  clock_type::time_point sent;
  std::string revision;  // what the first item's description now ends with
};

std::string random_run_id() {
  std::random_device random;
  char out[17];
  std::snprintf(out, sizeof out, "%08x%08x", random(), random());
  return out;
}

struct shared_state {
  const load_options& options;
  live_counters live;
  clock_type::time_point end;
  std::vector<std::string> declarations;  // body by provider
  std::vector<settle_template> settles;   // bodies, cycled, each send with a nonce of its own
  std::deque<probe> probes;               // lane 0 only
  std::string run_id = random_run_id();   // so no two runs against one catalog repeat a payment
};

bhttp::request<bhttp::string_body> get(const std::string& target, bool accept_gzip = false) {
  bhttp::request<bhttp::string_body> req{bhttp::verb::get, target, 11};
  req.set(bhttp::field::host, "127.0.0.1");
  if (accept_gzip) req.set(bhttp::field::accept_encoding, "gzip, deflate");
  return req;
}

bhttp::request<bhttp::string_body> post(const std::string& target, const std::string& key, std::string body) {
  bhttp::request<bhttp::string_body> req{bhttp::verb::post, target, 11};
  req.set(bhttp::field::host, "127.0.0.1");
  req.set(bhttp::field::content_type, "application/json");
  req.set(bhttp::field::authorization, "Bearer " + key);
  req.body() = std::move(body);
  req.prepare_payload();
  return req;
}

/// A request of kind `k` ended with `status`; `expected` is the status that counts as done (200,
/// or 400 for an invalid declaration), `why` the reason when it does not.
void record(shared_state& s, lane_stats& lane, kind k, unsigned status, const std::string& why, clock_type::time_point t0,
            unsigned expected = 200) {
  if (status == expected && why.empty()) {
    lane.ok(k, micros_since(t0));
    s.live.done[k].fetch_add(1, std::memory_order_relaxed);
  } else {
    ++lane.errors[k][!why.empty() ? why : "http " + std::to_string(status)];
    s.live.failed[k].fetch_add(1, std::memory_order_relaxed);
  }
}

std::string percent_encode(std::string_view s) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') out += static_cast<char>(c);
    else (out += '%', out += hex[c >> 4], out += hex[c & 15]);
  }
  return out;
}

net::awaitable<void> reader(shared_state& s, lane_stats& lane, std::size_t id) {
  static const std::array<const char*, 4> queries{"weather+forecast+for+a+city", "turn+a+web+page+into+markdown",
                                                  "translate+text", "geocode+an+address"};
  connection conn{co_await net::this_coro::executor, s.options};
  auto total = s.options.shape.providers * s.options.shape.items;
  auto pages = std::max<std::size_t>(1, total / s.options.list_limit);
  std::string why;
  for (std::size_t n = id; clock_type::now() < s.end; ++n) {
    bool is_search = s.options.search_every && n % s.options.search_every == 0;
    auto target = is_search ? "/discovery/search?query=" + std::string{queries[n % queries.size()]} + "&limit=10"
                            : "/discovery/resources?limit=" + std::to_string(s.options.list_limit) +
                                  "&offset=" + std::to_string((n % pages) * s.options.list_limit);
    auto t0 = clock_type::now();
    auto status = co_await conn.exchange(get(target, s.options.accept_gzip), nullptr, why);
    record(s, lane, is_search ? search : list, status, why, t0);
  }
}

net::awaitable<void> declarer(shared_state& s, lane_stats& lane, std::size_t p) {
  auto ex = co_await net::this_coro::executor;
  connection conn{ex, s.options};
  net::steady_timer timer{ex};
  // Spread the beats over the interval, as independent services would be.
  auto due = clock_type::now() + s.options.declare_every * p / std::max<std::size_t>(1, s.options.declarers);
  // What a seller's bug sends: an item whose resource is not a URL (refused by the rules, 400).
  static const std::string invalid_body = R"({"items":[{"resource":"not a url","type":"http","x402Version":2}]})";
  std::string why, answer;
  for (std::size_t beat = 1;; ++beat) {
    timer.expires_at(due);
    beast::error_code ec;
    co_await timer.async_wait(net::redirect_error(use_awaitable, ec));
    if (clock_type::now() >= s.end) break;
    auto t0 = clock_type::now();
    due += s.options.declare_every;
    if (s.options.invalid_every && beat % s.options.invalid_every == 0) {
      auto status = co_await conn.exchange(post("/discovery/declarations", s.options.provider_keys[p], invalid_body), &answer, why);
      record(s, lane, invalid, status, why, t0, 400);
      continue;
    }
    // A changed declaration is probed until readers see its content; a repeat is a heartbeat.
    if (s.options.change_every && beat % s.options.change_every == 0) {
      auto revision = "r" + std::to_string(p) + "x" + std::to_string(beat);
      s.declarations[p] = declaration_body(s.options.terms, s.options.shape, p, revision);
      s.probes.push_back({p, t0, std::move(revision)});
    }
    auto status = co_await conn.exchange(post("/discovery/declarations", s.options.provider_keys[p], s.declarations[p]), &answer, why);
    record(s, lane, declare, status, why, t0);
  }
}

/// The description readers see for the provider's first item, or empty.
net::awaitable<std::string> read_description(connection& conn, std::size_t provider) {
  std::string why, body;
  auto target = "/discovery/resource?type=http&method=GET&url=" + percent_encode(item_resource(provider, 0));
  auto status = co_await conn.exchange(get(target), &body, why);
  if (status != 200) co_return std::string{};
  auto doc = wire::parse_strict(body, 64);
  if (doc && doc->is_object())
    if (auto* items = doc->get_object().if_contains("resources"); items && items->is_array())
      for (auto& it : items->get_array())
        if (it.is_object())
          if (auto* text = wire::find_string(it.get_object(), "description")) co_return std::string{*text};
  co_return std::string{};
}

/// Polls the provider's first item until its description carries the beat's revision.
net::awaitable<void> prober(shared_state& s, lane_stats& lane) {
  auto ex = co_await net::this_coro::executor;
  // At a follower, what is probed is the time from the primary's answer to the follower's reads.
  auto probed = s.options;
  if (!probed.probe_port.empty()) probed.port = probed.probe_port;
  connection conn{ex, probed};
  net::steady_timer idle{ex};
  while (clock_type::now() < s.end || !s.probes.empty()) {
    if (s.probes.empty()) {
      idle.expires_after(std::chrono::milliseconds{1});
      beast::error_code ec;
      co_await idle.async_wait(net::redirect_error(use_awaitable, ec));
      continue;
    }
    auto p = s.probes.front();
    if (clock_type::now() - p.sent > std::chrono::seconds{10}) {  // never seen: an error, not a latency
      ++lane.errors[visibility]["not visible within 10 s"];
      s.live.failed[visibility].fetch_add(1, std::memory_order_relaxed);
      s.probes.pop_front();
      continue;
    }
    auto seen = co_await read_description(conn, p.provider);
    if (seen.ends_with("Revision " + p.revision + ".")) {
      lane.ok(visibility, micros_since(p.sent));
      s.live.done[visibility].fetch_add(1, std::memory_order_relaxed);
      s.probes.pop_front();
    }
  }
}

net::awaitable<void> settler(shared_state& s, lane_stats& lane, std::size_t id) {
  auto ex = co_await net::this_coro::executor;
  connection conn{ex, s.options};
  net::steady_timer timer{ex};
  auto interval = std::chrono::duration_cast<clock_type::duration>(
      std::chrono::duration<double>(static_cast<double>(s.options.settle_connections) / s.options.settles_per_second));
  auto due = clock_type::now() + interval * id / s.options.settle_connections;
  std::string why, answer;
  for (std::size_t n = id; due < s.end; n += s.options.settle_connections, due += interval) {
    if (clock_type::now() >= s.end) {  // behind schedule at the end: count what never went out
      for (; due < s.end; due += interval) ++lane.errors[settle]["due but not sent (behind schedule)"];
      break;
    }
    if (clock_type::now() < due) {
      timer.expires_at(due);
      beast::error_code ec;
      co_await timer.async_wait(net::redirect_error(use_awaitable, ec));
    }
    auto body = s.settles[n % s.settles.size()].with_nonce(s.run_id + "-" + std::to_string(n));
    auto status = co_await conn.exchange(post("/discovery/settled", s.options.settle_key, body), &answer, why);
    // Counted only when the catalog counted it: a 200 may carry a rejection (docs/contract.md §3).
    if (status == 200 && answer.find(R"("status":"success")") == std::string::npos) why = "rejected: " + answer;
    record(s, lane, settle, status, why, due);  // open loop: from when it was due
  }
}

}  // namespace

load_result run_load(const load_options& o, std::FILE* progress) {
  shared_state s{o, {}, clock_type::now() + o.duration, {}, {}, {}};
  for (std::size_t p = 0; p < o.declarers; ++p) s.declarations.push_back(declaration_body(o.terms, o.shape, p));
  for (std::size_t p = 0; p < o.shape.providers && o.settles_per_second > 0; ++p)
    for (std::size_t i = 0; i < o.shape.items; i += 16) s.settles.push_back(settle_body(o.terms, o.shape, p, i));

  load_result result;
  result.lanes.resize(std::max<std::size_t>(1, o.threads));
  std::vector<std::unique_ptr<net::io_context>> contexts;
  for (std::size_t l = 0; l < result.lanes.size(); ++l) contexts.push_back(std::make_unique<net::io_context>(1));
  auto& lane0 = *contexts[0];
  for (std::size_t r = 0; r < o.readers; ++r) {
    auto l = r % contexts.size();
    net::co_spawn(*contexts[l], reader(s, result.lanes[l], r), net::detached);
  }
  for (std::size_t p = 0; p < o.declarers && o.declare_every.count() > 0; ++p)
    net::co_spawn(lane0, declarer(s, result.lanes[0], p), net::detached);
  if (o.declarers && o.declare_every.count() > 0) net::co_spawn(lane0, prober(s, result.lanes[0]), net::detached);
  for (std::size_t c = 0; c < o.settle_connections && o.settles_per_second > 0; ++c) {
    auto l = c % contexts.size();
    net::co_spawn(*contexts[l], settler(s, result.lanes[l], c), net::detached);
  }

  auto start = clock_type::now();
  std::vector<std::thread> threads;
  for (auto& ctx : contexts) threads.emplace_back([&ctx] { ctx->run(); });
  std::array<std::uint64_t, kind_count> before{};
  for (int second = 1; clock_type::now() < s.end; ++second) {
    std::this_thread::sleep_until(start + std::chrono::seconds{second});
    std::string line = "t=" + std::to_string(second) + "s";
    for (std::size_t k = 0; k < kind_count; ++k) {
      auto now = s.live.done[k].load();
      if (now || s.live.failed[k].load()) line += "  " + std::string{kind_names[k]} + " " + std::to_string(now - before[k]) + "/s";
      before[k] = now;
      if (auto failed = s.live.failed[k].load()) line += " (" + std::to_string(failed) + " errors)";
    }
    if (progress) std::fprintf(progress, "%s\n", line.c_str());
  }
  for (auto& t : threads) t.join();
  result.seconds = std::chrono::duration<double>(clock_type::now() - start).count();  // includes answers after the end
  return result;
}

std::string seed_catalog(const load_options& o) {
  net::io_context ioc{1};
  std::string failure;
  net::co_spawn(ioc, [&]() -> net::awaitable<void> {
    connection conn{co_await net::this_coro::executor, o};
    net::steady_timer wait{co_await net::this_coro::executor};
    std::string why, answer;
    for (std::size_t p = 0; p < o.shape.providers; ++p) {
      auto body = declaration_body(o.terms, o.shape, p);
      for (int attempt = 0;; ++attempt) {
        auto status = co_await conn.exchange(post("/discovery/declarations", o.provider_keys[p], body), &answer, why);
        if (status == 200) break;
        if (status != 401 || attempt > 40) {
          failure = "provider " + std::to_string(p) + ": " + (status ? "HTTP " + std::to_string(status) + " " + answer : why);
          co_return;
        }
        wait.expires_after(std::chrono::milliseconds{50});  // the server re-reads keys every 250 ms
        beast::error_code ec;
        co_await wait.async_wait(net::redirect_error(use_awaitable, ec));
      }
    }
  }, net::detached);
  ioc.run();
  return failure;
}

std::vector<std::uint64_t> searchable_latency(const load_options& o, std::size_t rounds, std::string& why) {
  std::vector<std::uint64_t> micros;
  net::io_context ioc{1};
  net::co_spawn(ioc, [&]() -> net::awaitable<void> {
    connection conn{co_await net::this_coro::executor, o};
    net::steady_timer pause{co_await net::this_coro::executor};
    std::string answer, failure;
    auto listed = item_resource(0, 0);
    for (std::size_t k = 0; k < rounds; ++k) {
      std::string word = "zqprobe";  // letters only: one term whatever the tokenizer does with digits
      for (auto n = k + 1; n; n /= 26) word += static_cast<char>('a' + n % 26);
      auto t0 = clock_type::now();
      auto status = co_await conn.exchange(post("/discovery/declarations", o.provider_keys[0], declaration_body(o.terms, o.shape, 0, word)),
                                           &answer, failure);
      if (status != 200) {
        why = "the changed declaration got " + (status ? "HTTP " + std::to_string(status) + " " + answer : failure);
        co_return;
      }
      for (;;) {
        status = co_await conn.exchange(get("/discovery/search?query=" + word + "&limit=1"), &answer, failure);
        if (status == 200 && answer.find(listed) != std::string::npos) break;
        if (status != 200 || clock_type::now() - t0 > std::chrono::seconds{10}) {
          why = "not searchable within 10 s (last answer " + std::to_string(status) + ")";
          co_return;
        }
      }
      micros.push_back(micros_since(t0));
      pause.expires_after(std::chrono::milliseconds{100});  // rounds apart, as separate edits are
      beast::error_code ec;
      co_await pause.async_wait(net::redirect_error(use_awaitable, ec));
    }
  }, net::detached);
  ioc.run();
  if (!why.empty()) micros.clear();
  return micros;
}

}  // namespace z402::bench
