#include "test_load.hpp"

#include "http/connection_deadlines.hpp"
#include "http/tls_stream.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <optional>
#include <thread>

namespace z402::bench {

void endpoint_record::merge(const endpoint_record& other) {
  corrected.merge(other.corrected);
  service.merge(other.service);
  due += other.due;
  ok += other.ok;
  late += other.late;
  dropped += other.dropped;
  for (auto& [why, n] : other.errors) errors[why] += n;
  gzip_checked += other.gzip_checked;
}

namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;
using tcp = net::ip::tcp;
using net::use_awaitable;
using clock_type = std::chrono::steady_clock;

constexpr auto request_timeout = std::chrono::seconds{10};
constexpr auto late_after = std::chrono::milliseconds{1};
// A connection that cannot be made again for this long is a shortfall: the rate asked for is no
// longer being offered, and the run says so rather than report a lighter load.
constexpr auto shortfall_after = std::chrono::seconds{2};
constexpr std::size_t gzip_sample_every = 64;

// What a sampled answer's body was, asked for with Accept-Encoding: gzip. A small answer may
// come plain (z402-bazaar compresses above 1 KiB): only one that says gzip and is not is wrong.
enum class gzip_seen { plain, checked, bad };

std::uint64_t micros(clock_type::duration d) {
  return static_cast<std::uint64_t>(std::max<std::int64_t>(0, std::chrono::duration_cast<std::chrono::microseconds>(d).count()));
}

// Why a settle's answer (`{"bazaar":{"status":"success"}}`, or "rejected" with a
// `rejectedReason`) says the catalog did not count it; empty when it did. The reason is cut to
// 64 characters (the catalog's start with the field and the rule), so a server cannot grow the
// report with reasons of its own.
std::string settle_refusal(std::string_view body) {
  if (body.find(R"("status":"success")") != std::string_view::npos) return {};
  constexpr std::string_view key = R"("rejectedReason":")";
  auto at = body.find(key);
  if (at == std::string_view::npos) return "rejected";
  auto reason = body.substr(at + key.size());
  return "rejected: " + std::string{reason.substr(0, std::min<std::size_t>(reason.find('"'), 64))};
}

// One io thread's share of the run: its connections write only here.
struct lane {
  std::array<endpoint_record, static_cast<std::size_t>(endpoint::count)> endpoints;
  std::vector<second_record> seconds;
  std::vector<std::uint64_t> answered;  // per request connection of the lane, sized before they run
  std::uint64_t connections_opened = 0;
  histogram handshakes;
};

// What every lane reads, and the few things they share.
struct shared_run {
  shared_run(const test_plan& p, const std::atomic<bool>& s) : plan(p), stop(s) {}
  const test_plan& plan;
  const std::atomic<bool>& stop;
  clock_type::time_point start, measure_from, end;
  std::atomic<bool> started{false};  // set once start, measure_from and end are
  std::atomic<std::uint64_t> issued{0};
  std::atomic<bool> failed{false};
  std::mutex why_mutex;
  std::string untrusted;
  std::array<std::atomic<std::uint64_t>, static_cast<std::size_t>(endpoint::count)> live_ok{}, live_failed{};

  bool stopping() const { return stop.load(std::memory_order_relaxed) || failed.load(std::memory_order_relaxed); }
  void distrust(std::string why) {
    std::lock_guard lock{why_mutex};
    if (untrusted.empty()) untrusted = std::move(why);
    failed = true;
  }
};

// A keep-alive connection, plain (a tcp::socket) or TLS, that reconnects after an error. An
// exchange is bounded by one deadline, a link in the lane's connection_deadlines armed when it
// starts and disarmed when it ends: with Beast's stream timer on every read and write, each
// answer went two or three times through the timer queue's heap and its mutex, a twelfth of the
// generator's time at 10,000 connections, where its cost per answer nearly doubled from 64
// (benchmarks/results/profile.md).
template <class Stream>
class connection {
 public:
  connection(net::any_io_executor ex, shared_run& run, lane& l, http::connection_deadlines& deadlines)
      : run_(run), lane_(l), ex_(ex), deadlines_(deadlines) {
    // Beast reads as much as the buffer has room for (512 bytes at the least): without room, a
    // 150 KB page took 300 reads, and the generator, not the server, set the pace.
    buffer_.reserve(read_room);
  }

  /// Connects (and shakes hands over TLS); the reason when it cannot.
  net::awaitable<std::string> connect() {
    beast::error_code ec;
    stream_.reset();
    tcp::resolver resolver{ex_};
    auto& t = run_.plan.target;
    auto endpoints = co_await resolver.async_resolve(t.connect_host, t.connect_port, net::redirect_error(use_awaitable, ec));
    if (ec) co_return "cannot resolve " + t.connect_host + ": " + ec.message();
    beast::tcp_stream plain{ex_};
    plain.expires_after(request_timeout);
    co_await plain.async_connect(endpoints, net::redirect_error(use_awaitable, ec));
    if (ec) co_return "cannot connect to " + t.connect_host + ":" + t.connect_port + ": " + ec.message();
    plain.socket().set_option(tcp::no_delay{true});
    if constexpr (std::is_same_v<Stream, tcp::socket>) {
      stream_.emplace(plain.release_socket());
    } else {
      // OpenSSL on the socket itself (http/tls_stream.hpp), as the server speaks it: Asio's
      // ssl::stream copied every record twice more, and over HTTPS the generator reached 0.77x
      // of wrk. SNI and the name the certificate must carry: the URL's host, wherever
      // --connect-to aims.
      stream_.emplace(plain.release_socket(), t.tls->native_handle(), t.host);
      auto& tls = stream_->stream;
      tls.expires_after(request_timeout);
      auto began = clock_type::now();
      co_await tls.async_handshake(net::redirect_error(use_awaitable, ec));
      if (ec) co_return "TLS handshake with " + t.host + " failed: " + ec.message();
      lane_.handshakes.record(micros(clock_type::now() - began));
      tls.expires_never();  // from here each exchange's deadline bounds its waits
    }
    ++lane_.connections_opened;
    buffer_.clear();
    co_return std::string{};
  }

  bool open() const { return stream_.has_value(); }

  /// Sends `req` (with `nonce` in its placeholder, if it has one) and reads its answer, dropping
  /// the body; the status, or 0 with `why`. With `check_gzip`, `gzip` says what the answer's body
  /// was: gzip'd and starting as gzip does (checked), or not encoded at all (plain), or said to be
  /// gzip'd and not (bad). A settle's answer says whether the catalog counted it: one that did not
  /// keeps its status and has its reason in `why`.
  net::awaitable<unsigned> exchange(const prepared_request& req, std::string_view nonce, bool check_gzip, gzip_seen& gzip,
                                    std::string& why) {
    deadlines_.arm(stream_->deadline, request_timeout);
    auto status = co_await bounded_exchange(stream_->stream, req, nonce, check_gzip, gzip, why);
    if (stream_) deadlines_.disarm(stream_->deadline);
    co_return status;
  }

 private:
  // A stream and the deadline that cancels its socket's operations.
  struct open_stream {
    template <class... Args>
    explicit open_stream(Args&&... args) : stream(std::forward<Args>(args)...), deadline(socket_of(stream)) {}
    Stream stream;
    http::deadline_link deadline;
  };

  static tcp::socket& socket_of(tcp::socket& s) { return s; }
  static tcp::socket& socket_of(http::tls_stream& s) { return s.socket(); }

  // exchange, under its armed deadline.
  net::awaitable<unsigned> bounded_exchange(Stream& stream, const prepared_request& req, std::string_view nonce, bool check_gzip,
                                            gzip_seen& gzip, std::string& why) {
    beast::error_code ec;
    if (req.nonce_at == std::string::npos) {
      co_await net::async_write(stream, net::buffer(req.text), net::redirect_error(use_awaitable, ec));
    } else {
      std::string_view text{req.text};
      std::array<net::const_buffer, 3> parts{net::buffer(text.substr(0, req.nonce_at)), net::buffer(nonce),
                                             net::buffer(text.substr(req.nonce_at + nonce_width))};
      co_await net::async_write(stream, parts, net::redirect_error(use_awaitable, ec));
    }
    if (ec) co_return fail(why, ec);
    bhttp::response_parser<bhttp::buffer_body> parser;
    parser.body_limit(boost::none);
    co_await bhttp::async_read_header(stream, buffer_, parser, net::redirect_error(use_awaitable, ec));
    if (ec) co_return fail(why, ec);
    const bool settled = req.kind == endpoint::settle && parser.get().result_int() / 100 == 2;
    first_size_ = 0;
    if (parser.is_done()) {
      // no body (a 204 or 304)
    } else if (auto length = parser.content_length(); length && !parser.chunked()) {
      // Framed by Content-Length: the bytes that came with the header, then straight from the
      // stream into one scratch buffer, dropped (no parser copies them: a page is 150 KB).
      auto left = *length;
      auto buffered = static_cast<std::size_t>(std::min<std::uint64_t>(left, buffer_.size()));
      keep_first(static_cast<const char*>(buffer_.data().data()), buffered);
      buffer_.consume(buffered);
      left -= buffered;
      while (left > 0) {
        auto n = co_await stream.async_read_some(net::buffer(scratch_.get(), static_cast<std::size_t>(std::min<std::uint64_t>(left, scratch_size))),
                                                   net::redirect_error(use_awaitable, ec));
        if (ec) co_return fail(why, ec);
        keep_first(scratch_.get(), n);
        left -= n;
      }
    } else {
      // Chunked (or until the connection closes): Beast's parser takes the framing apart.
      while (!parser.is_done()) {
        parser.get().body().data = scratch_.get();
        parser.get().body().size = scratch_size;
        co_await bhttp::async_read(stream, buffer_, parser, net::redirect_error(use_awaitable, ec));
        if (ec == bhttp::error::need_buffer) ec = {};
        if (ec) co_return fail(why, ec);
        keep_first(scratch_.get(), scratch_size - parser.get().body().size);
      }
    }
    if (settled) why = first_size_ ? settle_refusal({first_.data(), first_size_}) : "rejected: no outcome";
    if (check_gzip && first_size_ >= 2) {
      auto* b = reinterpret_cast<const unsigned char*>(first_.data());
      auto encoding = parser.get()[bhttp::field::content_encoding];
      gzip = encoding.empty() ? gzip_seen::plain : encoding == "gzip" && b[0] == 0x1f && b[1] == 0x8b ? gzip_seen::checked : gzip_seen::bad;
    }
    if (!parser.get().keep_alive()) stream_.reset();
    co_return parser.get().result_int();
  }

  // The body's first bytes, where a settle's outcome and gzip's magic are read.
  void keep_first(const char* bytes, std::size_t n) {
    auto take = std::min(n, first_.size() - first_size_);
    std::memcpy(first_.data() + first_size_, bytes, take);
    first_size_ += take;
  }

  unsigned fail(std::string& why, const beast::error_code& ec) {
    // A passed deadline is disarmed as it cancels the socket's operations.
    const bool timed_out = ec == net::error::operation_aborted && !stream_->deadline.armed();
    why = timed_out ? "timeout" : ec == net::error::eof || ec == bhttp::error::end_of_stream ? "closed" : "io";
    stream_.reset();
    return 0;
  }

  shared_run& run_;
  lane& lane_;
  net::any_io_executor ex_;
  http::connection_deadlines& deadlines_;
  std::optional<open_stream> stream_;
  static constexpr std::size_t read_room = 64u << 10;
  beast::flat_buffer buffer_;
  static constexpr std::size_t scratch_size = 64u << 10;
  std::unique_ptr<char[]> scratch_{new char[scratch_size]};
  std::array<char, 256> first_{};
  std::size_t first_size_ = 0;
};

// What one connection sends and when: the `index`-th of `count` connections sharing `rate`
// takes every count-th of `requests`, each due every count/rate seconds from `offset` after the
// start (open loop), or back to back (closed).
struct schedule {
  const std::vector<prepared_request>* requests;
  double rate;
  std::size_t index, count;
  std::chrono::duration<double> offset;
  bool open_loop;
};

// The nonce of the `k`-th send of connection `index`: unique in the run, and across runs by the
// run's id.
void write_nonce(std::array<char, nonce_width>& nonce, const std::string& run_id, std::size_t index, std::uint64_t k) {
  static constexpr char hex[] = "0123456789abcdef";
  std::copy_n(run_id.begin(), std::min<std::size_t>(16, run_id.size()), nonce.begin());
  for (std::size_t d = 0; d < 4; ++d) nonce[16 + d] = hex[(index >> (4 * (3 - d))) & 15];
  for (std::size_t d = 0; d < 12; ++d) nonce[20 + d] = hex[(k >> (4 * (11 - d))) & 15];
}

// `answered` counts the connection's measured 2xx answers (none for the declarer's).
template <class Stream>
net::awaitable<void> drive(shared_run& run, lane& l, schedule sched, std::shared_ptr<connection<Stream>> conn,
                           std::uint64_t* answered) {
  auto& plan = run.plan;
  auto& requests = *sched.requests;
  net::steady_timer timer{co_await net::this_coro::executor};
  auto interval = std::chrono::duration<double>(static_cast<double>(sched.count) / sched.rate);
  std::size_t next = sched.index % requests.size();
  std::array<char, nonce_width> nonce{};
  std::optional<clock_type::time_point> down_since;
  for (std::uint64_t k = 0;; ++k) {
    if (run.stopping()) co_return;
    // A closed loop's request is due when the last one ended, the first at the start (the lanes
    // begin up to a few ms before it, and a first answer before it would not be counted).
    auto due = sched.open_loop ? run.start + std::chrono::duration_cast<clock_type::duration>(sched.offset + k * interval)
                               : std::max(clock_type::now(), run.start);
    if (due >= run.end) co_return;
    if (plan.max_requests && run.issued.fetch_add(1, std::memory_order_relaxed) >= plan.max_requests) co_return;
    if (clock_type::now() < due) {
      timer.expires_at(due);
      beast::error_code ec;
      co_await timer.async_wait(net::redirect_error(use_awaitable, ec));
    }
    auto& req = requests[next];
    next = (next + sched.count) % requests.size();
    const bool measured = due >= run.measure_from;
    auto& rec = l.endpoints[static_cast<std::size_t>(req.kind)];
    auto second = measured ? static_cast<std::size_t>(std::chrono::duration_cast<std::chrono::seconds>(due - run.measure_from).count()) : 0;
    auto* per_second = measured && second < l.seconds.size() ? &l.seconds[second] : nullptr;
    if (measured) ++rec.due;
    if (per_second) ++per_second->due;
    auto began = clock_type::now();
    if (sched.open_loop && began - due > plan.drop_after) {
      if (measured) ++rec.dropped;
      continue;
    }
    if (measured && sched.open_loop && began - due > late_after) ++rec.late;
    std::string why;
    if (!conn->open()) {
      why = co_await conn->connect();
      if (!why.empty()) {
        if (!down_since) down_since = clock_type::now();
        if (clock_type::now() - *down_since > shortfall_after)
          run.distrust("connection shortfall: a connection could not be made again for " +
                       std::to_string(std::chrono::duration_cast<std::chrono::seconds>(shortfall_after).count()) + " s (" + why + ")");
        if (measured) ++rec.errors["connect"];
        if (per_second) ++per_second->failed;
        run.live_failed[static_cast<std::size_t>(req.kind)].fetch_add(1, std::memory_order_relaxed);
        timer.expires_after(std::chrono::milliseconds{100});
        beast::error_code ec;
        co_await timer.async_wait(net::redirect_error(use_awaitable, ec));
        continue;
      }
      down_since.reset();
    }
    auto sent = clock_type::now();
    bool check_gzip = plan.gzip && k % gzip_sample_every == 0;
    auto gzip = gzip_seen::plain;
    if (req.nonce_at != std::string::npos) write_nonce(nonce, plan.run_id, sched.index, k);
    auto status = co_await conn->exchange(req, {nonce.data(), nonce.size()}, check_gzip, gzip, why);
    auto done = clock_type::now();
    if (!measured) continue;
    auto corrected = micros(done - (sched.open_loop ? due : sent));
    rec.corrected.record(corrected);
    rec.service.record(micros(done - sent));
    if (per_second) per_second->max_corrected = std::max(per_second->max_corrected, corrected);
    if (status >= 200 && status < 300 && why.empty() && gzip != gzip_seen::bad) {
      ++rec.ok;
      if (answered) ++*answered;
      if (gzip == gzip_seen::checked) ++rec.gzip_checked;
      if (per_second) ++per_second->ok;
      run.live_ok[static_cast<std::size_t>(req.kind)].fetch_add(1, std::memory_order_relaxed);
    } else {
      ++rec.errors[!why.empty() ? why : status >= 200 && status < 300 ? "bad gzip" : "status " + std::to_string(status)];
      if (per_second) ++per_second->failed;
      run.live_failed[static_cast<std::size_t>(req.kind)].fetch_add(1, std::memory_order_relaxed);
    }
  }
}

// Makes the lane's connections (all of them before any load: one that cannot be made ends the
// run untrusted), and lane 0 the declarer's, then drives them.
template <class Stream>
net::awaitable<void> lane_main(shared_run& run, lane& l, http::connection_deadlines& deadlines, std::size_t first, std::size_t step,
                               std::atomic<std::size_t>& ready) {
  auto ex = co_await net::this_coro::executor;
  auto& plan = run.plan;
  std::vector<std::pair<schedule, std::shared_ptr<connection<Stream>>>> mine;
  for (auto i = first; i < plan.connections; i += step)
    mine.emplace_back(schedule{&plan.requests, plan.rate, i, plan.connections, std::chrono::duration<double>(static_cast<double>(i) / plan.rate),
                               plan.open_loop},
                      nullptr);
  l.answered.assign(mine.size(), 0);
  // The heartbeat keeps its cadence in a closed loop too (a provider declares on a clock); the
  // first is one period after the declaration made before the start.
  if (first == 0 && !plan.declarations.empty())
    mine.emplace_back(schedule{&plan.declarations, 1000.0 / static_cast<double>(plan.declare_every.count()), 0, 1, plan.declare_every, true},
                      nullptr);
  for (auto& [sched, conn] : mine) {
    conn = std::make_shared<connection<Stream>>(ex, run, l, deadlines);
    if (auto why = co_await conn->connect(); !why.empty()) {
      run.distrust(why);
      co_return;
    }
  }
  ready.fetch_add(1);
  // Every lane starts together: the first due time is the same start for all.
  while (!run.started.load(std::memory_order_acquire) && !run.stopping()) {
    net::steady_timer wait{ex, std::chrono::milliseconds{1}};
    co_await wait.async_wait(use_awaitable);
  }
  for (std::size_t i = 0; i < mine.size(); ++i) {
    auto* answered = i < l.answered.size() ? &l.answered[i] : nullptr;  // the declarer's is last
    net::co_spawn(ex, drive<Stream>(run, l, mine[i].first, mine[i].second, answered), net::detached);
  }
}

double cpu_seconds() {
  rusage self{};
  getrusage(RUSAGE_SELF, &self);
  return static_cast<double>(self.ru_utime.tv_sec + self.ru_stime.tv_sec) +
         static_cast<double>(self.ru_utime.tv_usec + self.ru_stime.tv_usec) / 1e6;
}

void print_progress(shared_run& run, std::array<std::uint64_t, static_cast<std::size_t>(endpoint::count)>& last_ok, std::size_t second) {
  std::string line = "z402-load: " + std::to_string(second) + " s";
  for (std::size_t e = 0; e < last_ok.size(); ++e) {
    auto ok = run.live_ok[e].load(std::memory_order_relaxed);
    auto failed = run.live_failed[e].load(std::memory_order_relaxed);
    if (!ok && !failed) continue;
    line += "  " + std::string{endpoint_names[e]} + " " + std::to_string(ok - last_ok[e]) + "/s";
    if (failed) line += " (" + std::to_string(failed) + " failed)";
    last_ok[e] = ok;
  }
  std::fprintf(stderr, "%s\n", line.c_str());
}

template <class Stream>
unsigned send_with(Stream& stream, const std::string& request, std::string& body, std::string& why) {
  beast::error_code ec;
  net::write(stream, net::buffer(request), ec);
  beast::flat_buffer buffer;
  bhttp::response_parser<bhttp::string_body> parser;
  parser.body_limit(64u << 20);
  if (!ec) bhttp::read(stream, buffer, parser, ec);
  if (ec) {
    why = ec.message();
    return 0;
  }
  body = std::move(parser.get().body());
  return parser.get().result_int();
}

}  // namespace

unsigned send_once(const test_target& target, const std::string& request, std::string& body, std::string& why) {
  net::io_context ioc;
  beast::error_code ec;
  tcp::resolver resolver{ioc};
  auto endpoints = resolver.resolve(target.connect_host, target.connect_port, ec);
  if (ec) return why = "cannot resolve " + target.connect_host + ": " + ec.message(), 0;
  if (target.scheme != "https") {
    beast::tcp_stream stream{ioc};
    stream.expires_after(request_timeout);
    stream.connect(endpoints, ec);
    if (ec) return why = "cannot connect to " + target.connect_host + ":" + target.connect_port + ": " + ec.message(), 0;
    return send_with(stream, request, body, why);
  }
  beast::ssl_stream<beast::tcp_stream> stream{ioc, *target.tls};
  SSL_set_tlsext_host_name(stream.native_handle(), target.host.c_str());
  stream.set_verify_callback(net::ssl::host_name_verification(target.host));
  beast::get_lowest_layer(stream).expires_after(request_timeout);
  beast::get_lowest_layer(stream).connect(endpoints, ec);
  if (ec) return why = "cannot connect to " + target.connect_host + ":" + target.connect_port + ": " + ec.message(), 0;
  stream.handshake(net::ssl::stream_base::client, ec);
  if (ec) return why = "TLS handshake with " + target.host + " failed: " + ec.message(), 0;
  return send_with(stream, request, body, why);
}

test_result run_test(const test_plan& plan, const std::atomic<bool>& stop) {
  shared_run run{plan, stop};
  std::vector<lane> lanes(plan.threads);
  auto measured_seconds = static_cast<std::size_t>(std::ceil(std::chrono::duration<double>(plan.duration).count()));
  for (auto& l : lanes) l.seconds.resize(measured_seconds);
  auto cpu_before = cpu_seconds();
  // Connections are made before the clock starts: the start is set once all are up.
  std::vector<std::unique_ptr<net::io_context>> contexts;
  std::atomic<std::size_t> ready{0};
  auto far = clock_type::now() + std::chrono::hours{24 * 365};
  run.start = run.measure_from = run.end = far;
  for (std::size_t t = 0; t < plan.threads; ++t) {
    auto& context = *contexts.emplace_back(std::make_unique<net::io_context>(1));
    auto& deadlines = net::use_service<http::connection_deadlines>(context);
    auto spawn = [&](auto stream_tag) {
      using Stream = typename decltype(stream_tag)::type;
      net::co_spawn(context, lane_main<Stream>(run, lanes[t], deadlines, t, plan.threads, ready), net::detached);
    };
    if (plan.target.scheme == "https") spawn(std::type_identity<http::tls_stream>{});
    else spawn(std::type_identity<tcp::socket>{});
  }
  // Each lane makes its connections and waits for `started`: the times are set once all are up.
  std::vector<std::thread> threads;
  for (auto& ctx : contexts) threads.emplace_back([&ctx] { ctx->run(); });
  while (ready.load() < plan.threads && !run.stopping()) std::this_thread::sleep_for(std::chrono::milliseconds{1});
  test_result result;
  if (!run.stopping()) {
    run.start = clock_type::now() + std::chrono::milliseconds{5};
    run.measure_from = run.start + plan.warmup;
    run.end = run.measure_from + plan.duration;
    run.started.store(true, std::memory_order_release);
  }
  std::array<std::uint64_t, static_cast<std::size_t>(endpoint::count)> last_ok{};
  for (std::size_t s = 1; !run.stopping() && clock_type::now() < run.end; ++s) {
    std::this_thread::sleep_until(std::min(run.end, run.start + std::chrono::seconds{s}));
    if (plan.progress && clock_type::now() < run.end) print_progress(run, last_ok, s);
  }
  // At the end every request due in the window is sent, answered or timed out (the lanes run
  // out of work). Stopped early, what is in flight is left.
  auto measured_end = run.end;
  if (run.stopping()) {
    measured_end = std::min(run.end, clock_type::now());
    for (auto& ctx : contexts) ctx->stop();
  }
  for (auto& t : threads) t.join();
  for (auto& l : lanes) {
    for (std::size_t e = 0; e < l.endpoints.size(); ++e) result.endpoints[e].merge(l.endpoints[e]);
    result.connections_opened += l.connections_opened;
    result.answered_per_connection.insert(result.answered_per_connection.end(), l.answered.begin(), l.answered.end());
    result.handshakes.merge(l.handshakes);
    if (result.seconds.size() < l.seconds.size()) result.seconds.resize(l.seconds.size());
    for (std::size_t s = 0; s < l.seconds.size(); ++s) {
      result.seconds[s].due += l.seconds[s].due;
      result.seconds[s].ok += l.seconds[s].ok;
      result.seconds[s].failed += l.seconds[s].failed;
      result.seconds[s].max_corrected = std::max(result.seconds[s].max_corrected, l.seconds[s].max_corrected);
    }
  }
  result.measured_seconds = measured_end > run.measure_from && run.measure_from != far
                                ? std::chrono::duration<double>(measured_end - run.measure_from).count()
                                : 0;
  result.generator_cpu_seconds = cpu_seconds() - cpu_before;
  result.untrusted = run.untrusted;
  return result;
}

}  // namespace z402::bench
