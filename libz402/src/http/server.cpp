#include "z402/http/server.hpp"

#include "http/connection_deadlines.hpp"
#include "http/iov.hpp"
#include "http/page_file.hpp"
#include "http/refusal.hpp"
#include "http/tls_stream.hpp"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <sys/sendfile.h>
#include <sys/socket.h>
#include <netinet/tcp.h>

#include <cerrno>
#include <deque>
#include <optional>

namespace z402::http {

namespace net = boost::asio;
namespace beast = boost::beast;
using tcp = net::ip::tcp;

constexpr std::size_t small_read_buffer = 4u << 10;  // a header and a settle body in one read,
                                                     // held only while a request is read
// A connection whose request came within this of its last answer's being sent, or while answers
// were pending, is busy: it keeps its read buffer and reads at once (await_request). Long enough
// that a connection sending 10 requests a second or more never waits (a rail node's settles, a
// reader paging), short enough that one left idle gives its buffer back at its next wait.
constexpr std::chrono::milliseconds busy_gap{100};
// What the wait for a plain connection's next request reads into: a GET from a generator or an
// API client (100 to 300 bytes) in one read; a larger request's rest is read into the buffer.
constexpr std::size_t landing_bytes = 512;
constexpr std::size_t tls_record = 16u << 10;  // the most a TLS record carries

std::span<const std::string_view> handler::route_names() const {
  static constexpr std::string_view all[] = {"all"};
  return all;
}

std::size_t handler::route_index(std::string_view) const { return 0; }

void responder::operator()(response res) const { session_->answer(seq_, std::move(res)); }

namespace {

template <class Stream>
class basic_session final : public session, public std::enable_shared_from_this<basic_session<Stream>> {
  static constexpr bool is_tls = std::is_same_v<Stream, tls_stream>;
  using std::enable_shared_from_this<basic_session<Stream>>::shared_from_this;

 public:
  basic_session(tcp::socket socket, server& srv, connection_deadlines& deadlines, std::shared_ptr<net::ssl::context> tls)
      : tls_(std::move(tls)), stream_(make_stream(std::move(socket), tls_.get())), server_(srv), deadlines_(deadlines) {}
  ~basic_session() override {
    if (auto* m = server_.options().metrics) {
      m->requests_in_flight.add(-static_cast<std::int64_t>(slots_.size()));
      m->connections_open.add(-1);
      if (buffer_.capacity()) m->read_buffers.add(-1);
    }
    server_.session_ended();
  }

  void start() {
    net::dispatch(stream_.get_executor(), [self = shared_from_this()] {
      if constexpr (is_tls) {
        self->stream_.expires_after(self->server_.options().read_timeout);
        self->stream_.async_handshake([self](beast::error_code ec) {
          self->stream_.expires_never();  // from here the session's deadlines bound its waits
          if (ec) {
            if (auto* m = self->server_.options().metrics) m->tls_handshake_failures.add();
            return self->close();
          }
          self->read_next();
        });
      } else {
        beast::error_code ec;
        self->stream_.socket().native_non_blocking(true, ec);  // for the gathered sendmsg
        self->read_next();
      }
    });
  }

  void answer(std::size_t seq, response res) override {
    net::post(stream_.get_executor(),
              [self = shared_from_this(), seq, res = std::move(res)]() mutable { self->fill(seq, std::move(res)); });
  }

  void close_if_idle() override {
    net::post(stream_.get_executor(), [self = shared_from_this()] {
      if (!self->in_request_ && self->slots_.empty()) self->close();
    });
  }

  void close_now() override {
    net::post(stream_.get_executor(), [self = shared_from_this()] { self->close(); });
  }

 private:
  // One answer in request order; writes fill theirs later.
  struct slot {
    std::optional<response> res;
    std::string method;
    std::string target;
    std::chrono::steady_clock::time_point started;
    bool keep_alive = true;
  };

  static Stream make_stream(tcp::socket socket, net::ssl::context* tls) {
    if constexpr (is_tls) return Stream{std::move(socket), tls->native_handle()};
    else return Stream{std::move(socket)};
  }

  void read_next() {
    if (closing_ || slots_.size() >= server_.options().pipeline_limit || reading_) return;
    reading_ = true;
    auto timeout = slots_.empty() && !first_ ? server_.options().idle_timeout : server_.options().read_timeout;
    first_ = false;
    bool nothing_read = buffer_.size() == 0;
    if constexpr (is_tls) nothing_read = nothing_read && !stream_.has_pending();
    if (nothing_read && !busy_) return await_request(timeout);
    read_header(timeout);
  }

  // With nothing buffered (no pipelined request), a connection gives its read buffer back
  // and waits for the next request's first bytes, as nginx does with a keep-alive connection:
  // an idle connection costs no buffer (4 KiB of its 7 KB here), and a server's connections
  // under load hold buffers only for the requests being read. The wait costs one epoll_ctl
  // where a read would have started: 3 % of the 10-item pages a second when every request
  // waited (83.5k -> 80.9k/s, median of five wrk runs), and gzip'd reads under the suite's
  // write load ran about a tenth slower when its 256 settle connections (one request every
  // 50 ms each) all waited, so a busy connection (a request after its first that came within
  // busy_gap of the last answer, or while answers were pending) skips it and keeps its buffer
  // until a request comes later than that. The wait is bounded by `timeout` (the idle timeout
  // once a request was answered), the header that follows by the request timeout.
  //
  // Over plain TCP the wait is a read into the session's landing bytes: a request that fits
  // (every generator's and API client's GET) is read whole by it, so the wait costs no
  // epoll_ctl (a read is queued on the edge-triggered descriptor as it is, where Asio's
  // async_wait re-arms it each time) and no second read. Over TLS, OpenSSL would hold its
  // 17 KB record buffer from a read that finds nothing: the wait is on the socket.
  void await_request(std::chrono::steady_clock::duration timeout) {
    drop_read_buffer();
    if constexpr (is_tls) {
      await_socket(tcp::socket::wait_read, read_deadline_, timeout, [this](beast::error_code ec) {
        if (ec) return on_read_error(ec);  // idle too long, closed by a drain: nothing to answer
        read_header(server_.options().read_timeout);
      });
    } else {
      deadlines_.arm(read_deadline_, timeout);
      stream_.socket().async_read_some(net::buffer(landing_), [self = shared_from_this()](beast::error_code ec, std::size_t n) {
        self->deadlines_.disarm(self->read_deadline_);
        if (ec) return self->on_read_error(ec);  // idle too long, closed by a drain or the client
        self->hold_read_buffer();
        self->buffer_.commit(net::buffer_copy(self->buffer_.prepare(n), net::buffer(self->landing_, n)));
        self->read_header(self->server_.options().read_timeout);
      });
    }
  }

  // Waits until the socket is ready for `what`, for at most `timeout` (past it, the wait is
  // cancelled and `then` gets operation_aborted). A deadline that passes in the turn its wait
  // completed cancels nothing: the wait is no longer pending, and the handler disarms it before
  // the socket's next operation starts. `then` runs while the wait's handler holds the session.
  template <class Then>
  void await_socket(tcp::socket::wait_type what, deadline_link& deadline,
                    std::chrono::steady_clock::duration timeout, Then then) {
    deadlines_.arm(deadline, timeout);
    stream_.socket().async_wait(what, [self = shared_from_this(), &deadline, then = std::move(then)](beast::error_code ec) mutable {
      self->deadlines_.disarm(deadline);
      then(ec);
    });
  }

  void read_header(std::chrono::steady_clock::duration timeout) {
    hold_read_buffer();
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(server_.options().header_limit));
    // Beast compares Content-Length with the limit while parsing the header, before the
    // handler has seen it: parse under the largest limit, apply the request's own in on_header.
    parser_->body_limit(server_.handler().max_body_limit());
    // A header already buffered whole (a request the landing bytes held, a pipelined one) is
    // parsed here: Beast's read would complete it through the io loop.
    if (beast::error_code ec; !parse_buffered(ec)) return on_read_error(ec);
    if (parser_->is_header_done()) return on_header({});
    // One deadline for the header; the body's read arms it again only when there is a body.
    deadlines_.arm(read_deadline_, timeout);
    bhttp::async_read_header(stream_, buffer_, *parser_,
                             [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_header(ec); });
  }

  // Gives the parser what the read buffer holds (the header, or with eager() the body too);
  // false with `ec` when the bytes are not valid HTTP. Needing more bytes is no error.
  bool parse_buffered(beast::error_code& ec) {
    if (buffer_.size() == 0) return true;
    buffer_.consume(parser_->put(buffer_.data(), ec));
    if (ec == bhttp::error::need_more) ec = {};
    return !ec;
  }

  // The read buffer, counted in z402_http_read_buffers.
  void hold_read_buffer() {
    if (buffer_.capacity()) return;
    buffer_.reserve(small_read_buffer);
    if (auto* m = server_.options().metrics) m->read_buffers.add(1);
  }

  void drop_read_buffer() {
    if (!buffer_.capacity()) return;
    buffer_.shrink_to_fit();  // empty: frees it
    if (auto* m = server_.options().metrics) m->read_buffers.add(-1);
  }

  // The header's read ended: its deadline is disarmed first, whatever the outcome.
  void on_header(beast::error_code ec) {
    deadlines_.disarm(read_deadline_);
    if (ec) return on_read_error(ec);
    in_request_ = true;
    started_ = std::chrono::steady_clock::now();
    // Measured from the answer, not from read_next: a read started while the answer is pending
    // (a settle's, waiting for the catalog) would count the server's own delay as the client's.
    // A connection's first request (nothing answered, nothing pending) is never busy.
    busy_ = !slots_.empty() || (first_seq_ > 0 && started_ - answered_at_ < busy_gap);
    auto& header = parser_->get();
    auto verdict = server_.handler().on_header(header);
    early_ = std::move(verdict.early);
    context_ = std::move(verdict.context);
    bool has_body = parser_->chunked() || parser_->content_length().value_or(0) > 0;
    if (early_ && has_body) {
      // Answer without reading a body we will not use (a 404 stays a 404 whatever the body's
      // size); the connection closes after it.
      auto idx = reserve(header, false);
      auto res = std::move(*early_);
      early_.reset();
      return fill(idx, std::move(res));
    }
    if (parser_->content_length().value_or(0) > verdict.body_limit) return on_read_error(bhttp::error::body_limit);
    parser_->body_limit(verdict.body_limit);  // chunked bodies are counted as they arrive
    // A request without a body (every GET) is complete with its header: no second read.
    if (parser_->is_done()) return on_body({});
    if (verdict.before_body) {
      // No read is pending while the gate is shut, so the stream's deadline cannot fire; the
      // body's read arms it again.
      return verdict.before_body([self = shared_from_this()] {
        net::post(self->stream_.get_executor(), [self] { self->read_body(); });
      });
    }
    read_body();
  }

  void read_body() {
    // A small body (every settle's) has usually arrived with its header: parsed from the buffer
    // here, it needs no read operation of its own (Beast's would complete through the io loop).
    parser_->eager(true);
    if (beast::error_code ec; !parse_buffered(ec)) return on_read_error(ec);
    if (parser_->is_done()) return on_body({});
    deadlines_.arm(read_deadline_, server_.options().read_timeout);
    // The rest of a body framed by Content-Length is read straight into the request's string,
    // as much as the socket holds at each read (the buffer above is empty once the parser took
    // its bytes). Through Beast's parser each byte went into the read buffer, grown to 256 KiB
    // for it, and was copied from there: under the suite's declarations those buffers were
    // 2.1 MB of the peak beside the bodies themselves (benchmarks/results/profile.md).
    if (auto length = parser_->content_length(); length && !parser_->chunked()) {
      auto& body = parser_->get().body();
      auto have = body.size();
      body.resize(static_cast<std::size_t>(*length));
      net::async_read(stream_, net::buffer(body.data() + have, body.size() - have),
                      [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_body(ec); });
      return;
    }
    // Chunked: Beast's parser takes the framing apart, and its read may grow the buffer.
    bhttp::async_read(stream_, buffer_, *parser_,
                      [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_body(ec); });
  }

  // The body's read ended (or it needed none): its deadline is disarmed first.
  void on_body(beast::error_code ec) {
    deadlines_.disarm(read_deadline_);
    if (ec) return on_read_error(ec);
    // A buffer grown for a chunked body goes back whole; the next read takes a small one.
    if (buffer_.capacity() > small_read_buffer && buffer_.size() == 0) drop_read_buffer();
    reading_ = false;
    in_request_ = false;
    auto req = parser_->release();
    auto idx = reserve(req, req.keep_alive());
    if (early_) {
      auto res = std::move(*early_);
      early_.reset();
      fill(idx, std::move(res));
    } else if (auto res = server_.handler().on_request(req, context_, responder{shared_from_this(), idx})) {
      fill(idx, std::move(*res));
    }
    context_.reset();
    read_next();
  }

  void on_read_error(beast::error_code ec) {
    reading_ = false;
    if (ec == bhttp::error::header_limit || ec == bhttp::error::body_limit) {
      bool header = ec == bhttp::error::header_limit;
      auto& h = parser_->get();
      auto idx = reserve(h, false);
      auto res = header ? error_response(431, "headers_too_large", "the request headers are too large")
                        : error_response(413, "body_too_large", "the request body is too large for this endpoint");
      return fill(idx, std::move(res));
    }
    if (ec == bhttp::error::bad_target || ec == bhttp::error::bad_method || ec == bhttp::error::bad_field ||
        ec == bhttp::error::bad_value || ec == bhttp::error::bad_version || ec == bhttp::error::bad_line_ending ||
        ec == bhttp::error::bad_content_length || ec == bhttp::error::bad_transfer_encoding ||
        ec == bhttp::error::bad_chunk || ec == bhttp::error::bad_obs_fold) {
      auto idx = reserve_bare("-", "-", false);
      return fill(idx, error_response(400, "bad_request", "the request is not valid HTTP/1.1"));
    }
    // end_of_stream, timeout, reset, cancellation by drain: nothing more to answer.
    in_request_ = false;
    if (slots_.empty()) close();
    else closing_ = true;  // the last pending answer closes the connection
  }

  template <class Header>
  std::size_t reserve(const Header& h, bool keep_alive) {
    return reserve_bare(std::string{h.method_string()}, std::string{h.target()}, keep_alive);
  }

  std::size_t reserve_bare(std::string method, std::string target, bool keep_alive) {
    if (auto* m = server_.options().metrics) m->requests_in_flight.add(1);
    slots_.push_back({std::nullopt, std::move(method), std::move(target), started_, keep_alive});
    if (!keep_alive) closing_ = true;
    return first_seq_ + slots_.size() - 1;
  }

  void fill(std::size_t seq, response res) {
    auto& s = slots_[seq - first_seq_];
    s.keep_alive = s.keep_alive && !server_.draining();
    res.keep_alive(s.keep_alive);
    s.res = std::move(res);
    write_next();
  }

  void write_next() {
    if (writing_ || slots_.empty() || !slots_.front().res) return;
    writing_ = true;
    auto& res = *slots_.front().res;
    if (res.body().file) return write_file(res);
    write_gathered(res);
  }

  // Every answer not in a file goes out with sendmsg over its header and body pieces at once:
  // Linux takes up to 1024 per call, where Asio would split them into calls of 64 and Beast
  // walk the sequence again for each. A one-piece answer (a settle's, an error) skips Beast's
  // serializer too: its composed write, the buffer views and the executor copies were a fifth
  // of the server's time per settle (profile.md). It waits for writability only when the
  // socket is full, under the same deadline as any write.
  void write_head(const response& res) {
    gather_head_.assign("HTTP/1.1 ").append(std::to_string(res.result_int())).append(" ");
    gather_head_.append(res.reason()).append("\r\n");
    for (auto& f : res.base()) gather_head_.append(f.name_string()).append(": ").append(f.value()).append("\r\n");
    gather_head_.append("\r\n");
  }

  // The answer's bytes as a list of buffers (header, owned text, snapshot pieces, suffix):
  // sent with one sendmsg over plain TCP, encrypted a record at a time over TLS.
  void write_gathered(const response& res) {
    write_head(res);
    iov_.clear();
    append_iov(iov_, gather_head_.data(), gather_head_.size());
    append_iov(iov_, res.body());
    iov_at_ = 0;
    gather_sent_ = 0;
    if constexpr (is_tls) begin_records(res);
    else send_gathered();
  }

  // A page kept in a file (page_file) goes out as its header and the text before it (an MCP
  // answer's envelope), then sendfile from the file: the socket takes references to the file's
  // pages, where sendmsg would copy every byte. Over TLS the file's mapping is encrypted in place.
  void write_file(const response& res) {
    write_head(res);
    iov_.clear();
    append_iov(iov_, gather_head_.data(), gather_head_.size());
    append_iov(iov_, res.body().data(), res.body().size());
    iov_at_ = 0;
    gather_sent_ = 0;
    file_offset_ = 0;
    if constexpr (is_tls) begin_records(res);
    else send_file();
  }

  // Over TLS, OpenSSL encrypts each record from where the answer's bytes are and writes it to
  // the socket (tls_stream.hpp). Pieces smaller than a record (the header, an item's text) are
  // first gathered into one record's worth, so records are full; a connection never holds a
  // copy of a whole page (a 148 KB buffer per answer cost a third of the throughput in
  // page-heap traffic; one kept per connection would cost 1.5 GB for 10,000 idle connections).
  // A full socket is waited for under the same deadline as any write.
  //
  // An answer longer than a record is corked (TCP_CORK) until its last record is written: the
  // kernel sends full segments (64 KB on loopback) instead of one per record, a third of the
  // packets for a 150 KB page. Measured (wrk -t1/-t2 -c64, limit=100): 8.8-10.9k req/s without
  // it, 11.1-12.8k with it; nginx sends a segment per record.
  void begin_records(const response& res) {
    corked_ = gather_head_.size() + res.body().payload_size() > tls_record;
    if (corked_) set_cork(true);
    send_records();
  }

  void set_cork(bool on) {
    int value = on;
    ::setsockopt(stream_.socket().native_handle(), IPPROTO_TCP, TCP_CORK, &value, sizeof value);
  }

  void send_records() {
    for (;;) {
      if (out_.empty() && !next_record_bytes()) {
        if (std::exchange(corked_, false)) set_cork(false);
        std::string{}.swap(record_);
        return on_write({}, gather_sent_);
      }
      auto next = tls_stream::want::nothing;
      beast::error_code ec;
      auto n = stream_.write_some(out_, next, ec);
      if (ec) return on_write(ec, gather_sent_);
      if (next != tls_stream::want::nothing) {
        auto what = next == tls_stream::want::read ? tcp::socket::wait_read : tcp::socket::wait_write;
        return await_socket(what, write_deadline_, server_.options().read_timeout, [this](beast::error_code ec) {
          if (ec) return on_write(ec, gather_sent_);
          send_records();
        });
      }
      out_.remove_prefix(n);
      gather_sent_ += n;
    }
  }

  // The next bytes for OpenSSL (out_): a piece of a record's length or more, or the rest of a
  // page file, as they are; else the pieces that follow, and the file's first bytes, copied
  // into record_ up to a record's length. False when the answer is all written.
  bool next_record_bytes() {
    const auto* file = slots_.front().res->body().file.get();
    auto file_left = file ? file->bytes().substr(static_cast<std::size_t>(file_offset_)) : std::string_view{};
    if (iov_at_ == iov_.size()) {
      out_ = file_left;
      file_offset_ += static_cast<off_t>(file_left.size());
      return !out_.empty();
    }
    if (const auto& v = iov_[iov_at_]; v.iov_len >= tls_record) {
      out_ = {static_cast<const char*>(v.iov_base), v.iov_len};
      ++iov_at_;
      return true;
    }
    record_.clear();
    record_.reserve(tls_record);
    while (iov_at_ < iov_.size() && record_.size() < tls_record) {
      auto& v = iov_[iov_at_];
      auto take = std::min(v.iov_len, tls_record - record_.size());
      record_.append(static_cast<const char*>(v.iov_base), take);
      v.iov_base = static_cast<char*>(v.iov_base) + take;
      v.iov_len -= take;
      if (v.iov_len == 0) ++iov_at_;
    }
    if (iov_at_ == iov_.size()) {
      auto take = file_left.substr(0, tls_record - record_.size());
      record_.append(take);
      file_offset_ += static_cast<off_t>(take.size());
    }
    out_ = record_;
    return true;
  }

  void send_gathered() {
    while (iov_at_ < iov_.size()) {
      if (!sent(send_iov(0), &basic_session::send_gathered)) return;
    }
    on_write({}, gather_sent_);
  }

  void send_file() {
    const auto& file = *slots_.front().res->body().file;
    while (iov_at_ < iov_.size() || file_offset_ < static_cast<off_t>(file.size())) {
      ssize_t n = 0;
      if (iov_at_ < iov_.size()) {
        n = send_iov(MSG_MORE);  // the header and text: held back until the file follows them
      } else {
        n = ::sendfile(stream_.socket().native_handle(), file.fd(), &file_offset_, file.size() - file_offset_);
        if (n == 0) return on_write(bhttp::error::partial_message, gather_sent_);  // the file cannot be shorter
      }
      if (!sent(n, &basic_session::send_file)) return;
    }
    on_write({}, gather_sent_);
  }

  // sendmsg over what is left of iov_, dropping what it wrote.
  ssize_t send_iov(int flags) {
    msghdr msg{};
    msg.msg_iov = iov_.data() + iov_at_;
    msg.msg_iovlen = std::min(iov_.size() - iov_at_, max_iov);
    auto n = ::sendmsg(stream_.socket().native_handle(), &msg, MSG_NOSIGNAL | flags);
    if (n > 0) consume_iov(iov_, iov_at_, static_cast<std::size_t>(n));
    return n;
  }

  // After a non-blocking send of `n` bytes: true to go on. On a full socket, waits until it is
  // writable (under the same deadline as any write) and resumes with `resume`; on an error, ends
  // the write.
  bool sent(ssize_t n, void (basic_session::*resume)()) {
    if (n >= 0) {
      gather_sent_ += static_cast<std::size_t>(n);
      return true;
    }
    if (errno == EINTR) return true;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      // A reader too slow for the deadline is cut off.
      await_socket(tcp::socket::wait_write, write_deadline_, server_.options().read_timeout, [this, resume](beast::error_code ec) {
        if (ec) return on_write(ec, gather_sent_);
        (this->*resume)();
      });
      return false;
    }
    on_write(beast::error_code{errno, boost::system::system_category()}, gather_sent_);
    return false;
  }

  void on_write(beast::error_code ec, std::size_t bytes) {
    writing_ = false;
    auto& s = slots_.front();
    answered_at_ = std::chrono::steady_clock::now();
    auto took = answered_at_ - s.started;
    server_.log().record(s.method, s.target, s.res->result_int(), bytes, took);
    if (auto* m = server_.options().metrics) {
      m->request_done(server_.handler().route_index(path_of(s.target)), s.res->result_int(), took);
      m->requests_in_flight.add(-1);
    }
    bool keep_alive = s.keep_alive;
    slots_.pop_front();
    ++first_seq_;
    if (ec || !keep_alive) return close();
    if (closing_ && slots_.empty()) return close();
    if (server_.draining() && slots_.empty() && !in_request_) return close();
    write_next();
    read_next();
  }

  void close() {
    closing_ = true;
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.socket().close(ec);
  }

  std::shared_ptr<net::ssl::context> tls_;  // the certificate this connection was accepted with
  Stream stream_;
  server& server_;
  beast::flat_buffer buffer_;
  // Where a plain connection's wait for its next request reads (await_request).
  struct no_landing {};
  [[no_unique_address]] std::conditional_t<is_tls, no_landing, std::array<char, landing_bytes>> landing_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  std::deque<slot> slots_;
  std::size_t first_seq_ = 0;
  std::chrono::steady_clock::time_point started_{};
  std::chrono::steady_clock::time_point answered_at_{};  // when the last answer was sent (first_seq_ > 0)
  std::optional<response> early_;  // an answer decided from the headers alone
  std::any context_;                // what the handler's on_header passes to its on_request
  std::string gather_head_;         // the gathered answer being written: its header,
  std::string record_;              // over TLS, pieces gathered into a record,
  std::string_view out_;            // what OpenSSL is writing (in record_ or in the answer),
  bool corked_ = false;             // TCP_CORK set for the answer being written,
  std::vector<iovec> iov_;          // what is left of it,
  std::size_t iov_at_ = 0, gather_sent_ = 0;
  off_t file_offset_ = 0;           // and, for a page in a file, how much of it went out
  connection_deadlines& deadlines_;                      // those of the context it lives on:
  deadline_link read_deadline_{stream_.socket()};         // a request's wait, header and body,
  deadline_link write_deadline_{stream_.socket()};        // an answer's wait for room
  bool reading_ = false, writing_ = false, in_request_ = false, closing_ = false, first_ = true, busy_ = false;
};

}  // namespace

server::server(io_pool& io, server_options options, http::handler& h, const access_log& log)
    : io_(io),
      options_(std::move(options)),
      handler_(h),
      log_(log),
      acceptor_(io.main()),
      accept_pause_(io.main()),
      deadline_(io.main()) {}

void server::start() {
  tcp::endpoint endpoint{net::ip::make_address(options_.host), options_.port};
  acceptor_.open(endpoint.protocol());
  acceptor_.set_option(net::socket_base::reuse_address(true));
  acceptor_.bind(endpoint);
  acceptor_.listen(net::socket_base::max_listen_connections);
  bound_port_ = acceptor_.local_endpoint().port();
  if (options_.metrics) options_.metrics->connections_max.add(static_cast<std::int64_t>(options_.max_connections));
  accept();
}

void server::accept() {
  auto& context = io_.next();
  acceptor_.async_accept(context, [this, &context](beast::error_code ec, tcp::socket socket) {
    if (ec) {
      if (ec == net::error::operation_aborted || draining_) return;
      // E.g. out of file descriptors: retrying at once would spin; pause, keep serving the others.
      accept_pause_.expires_after(std::chrono::milliseconds{50});
      return accept_pause_.async_wait([this](beast::error_code) { accept(); });
    }
    if (draining_) return;
    if (live_sessions_.load() >= options_.max_connections) {
      // Past the limit: refused at once (refusal.hpp), never queued where nobody serves it.
      if (options_.metrics) options_.metrics->connections_refused.add();
      refuse_connection(std::move(socket), options_.tls != nullptr);
      return accept();
    }
    socket.set_option(tcp::no_delay(true), ec);
    auto& deadlines = net::use_service<connection_deadlines>(context);
    if (options_.tls) start_session(std::make_shared<basic_session<tls_stream>>(std::move(socket), *this, deadlines, options_.tls->current()));
    else start_session(std::make_shared<basic_session<beast::tcp_stream>>(std::move(socket), *this, deadlines, nullptr));
    accept();
  });
}

template <class Session>
void server::start_session(std::shared_ptr<Session> s) {
  ++live_sessions_;
  if (options_.metrics) {
    options_.metrics->connections_open.add(1);
    options_.metrics->connections_accepted.add();
  }
  {
    // Ended sessions are dropped once the list has doubled since the last sweep: each accept
    // costs O(1) amortized. Swept at every accept, 10,000 connections arriving at once cost 50
    // million checks on the accepting thread, and the last of them waited seconds in the
    // kernel's accept queue.
    std::lock_guard<std::mutex> guard{sessions_mutex_};
    if (sessions_.size() >= sweep_sessions_at_) {
      std::erase_if(sessions_, [](auto& w) { return w.expired(); });
      sweep_sessions_at_ = std::max<std::size_t>(64, 2 * sessions_.size());
    }
    sessions_.push_back(s);
  }
  s->start();
}

void server::drain(std::function<void()> on_drained) {
  on_drained_ = std::move(on_drained);
  // Armed before draining_ is set: the last session_ended() may cancel it from another thread
  // as soon as draining_ is seen, and a timer must not be armed and cancelled concurrently.
  deadline_.expires_after(options_.drain_deadline);
  deadline_.async_wait([this](beast::error_code ec) {
    if (ec) return;
    // Stragglers (a body still arriving, one waiting for room to be read): closed now, so each
    // ends through its own handlers while the io threads run, giving back what it holds. Left
    // to a stopped io_context, a session would be destroyed with the context's handlers after
    // the server and the handler's state, and call back into them (a SIGABRT at exit with two
    // declaration bodies in flight). What has still not ended a deadline later is not served.
    for (auto& s : live_sessions()) s->close_now();
    deadline_.expires_after(options_.drain_deadline);
    deadline_.async_wait([this](beast::error_code ec) {
      if (!ec) io_.stop();
    });
  });
  draining_ = true;
  net::post(acceptor_.get_executor(), [this] {
    beast::error_code ec;
    acceptor_.close(ec);
    accept_pause_.cancel();
  });
  for (auto& s : live_sessions()) s->close_if_idle();
  if (live_sessions_.load() == 0 && !drained_.exchange(true)) {
    deadline_.cancel();
    net::post(io_.main(), on_drained_);
  }
}

std::vector<std::shared_ptr<session>> server::live_sessions() {
  std::vector<std::shared_ptr<session>> live;
  std::lock_guard<std::mutex> guard{sessions_mutex_};
  for (auto& w : sessions_)
    if (auto s = w.lock()) live.push_back(std::move(s));
  return live;
}

void server::session_ended() {
  auto left = --live_sessions_;
  if (left == 0 && draining_ && !drained_.exchange(true)) {
    net::post(io_.main(), [this] {
      deadline_.cancel();
      if (on_drained_) on_drained_();
    });
  }
}

}  // namespace z402::http
