// An HTTP request through the Bazaar's handler, bytes in and response out, as the server runs it:
// Beast parses the bytes under the server's limits, the handler screens the header, then answers
// (reads at once; declarations, delistings and settles through the engine's actors). The
// catalog starts with a few items; keys "fuzz-provider-key" and "fuzz-settle-key" are valid, so
// inputs can reach the writes.
#include "target.hpp"
#include "sample_catalog.hpp"

#include "z402/core/crypto.hpp"
#include "z402/auth/keyring.hpp"
#include "z402/catalog/engine.hpp"
#include "z402/config/atomic_file.hpp"
#include "z402/config/bazaar_config.hpp"
#include "routes/handlers.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/beast/core/flat_buffer.hpp>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <thread>

namespace {

using namespace z402;

/// Everything the server would have, made once and kept for the whole run.
struct bazaar {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("z402-fuzz-http-" + std::to_string(::getpid()));
  caf::actor_system_config caf_cfg;
  std::unique_ptr<caf::actor_system> sys;
  std::unique_ptr<catalog::engine> engine;
  std::unique_ptr<auth::key_store> keys;
  boost::asio::io_context ioc;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work = boost::asio::make_work_guard(ioc);
  std::thread io_thread;
  boost::asio::thread_pool checks{1};
  std::unique_ptr<routes::settle_batcher> settles;
  std::unique_ptr<routes::bazaar_routes> app;
  std::unique_ptr<routes::bazaar_handler> handler;

  bazaar() {
    std::filesystem::create_directories(dir);
    auto keyring = boost::json::serialize(boost::json::object{
        {"format", "z402-providers"},
        {"version", 1},
        {"providers", boost::json::array{boost::json::object{{"name", "alpha"},
                                                             {"payTo", test::pay_to},
                                                             {"keySha256", crypto::sha256_hex("fuzz-provider-key")},
                                                             {"createdMs", 1}}}},
        {"settleKeys", boost::json::array{boost::json::object{{"keySha256", crypto::sha256_hex("fuzz-settle-key")}, {"createdMs", 1}}}}});
    fuzz::require(config::write_file_atomically(auth::keyring_path(dir), keyring).has_value(), "the keyring is written");
    keys = std::make_unique<auth::key_store>(auth::keyring_path(dir), telemetry::logger{});
    keys->reload();
    catalog::register_types(caf_cfg);
    caf_cfg.set("scheduler.max-threads", 2);
    sys = std::make_unique<caf::actor_system>(caf_cfg);
    catalog::engine_options options;
    options.initial = fuzz::sample_records();
    engine = std::make_unique<catalog::engine>(*sys, std::move(options));
    engine->set_payees({{test::pay_to, "alpha"}});
    settles = std::make_unique<routes::settle_batcher>(ioc, *engine);
    const config::bazaar_config defaults;  // the server's own, as `serve` starts with
    app = std::make_unique<routes::bazaar_routes>(*engine, *keys, std::string(32, 'c'), *settles, checks.get_executor(),
                                            defaults.declaration_bytes_in_flight);
    handler = std::make_unique<routes::bazaar_handler>(*app);
    io_thread = std::thread{[this] { ioc.run(); }};
  }
};

/// The connection an answer reaches: keeps the first one.
class answer_slot final : public http::session {
 public:
  void answer(std::size_t, http::response res) override { answered_.set_value(std::move(res)); }
  void close_if_idle() override {}
  void close_now() override {}
  std::future<http::response> future() { return answered_.get_future(); }

 private:
  std::promise<http::response> answered_;
};

}  // namespace

Z402_FUZZ_TARGET(http_request) {
  namespace bhttp = boost::beast::http;
  static auto* server = new bazaar;  // never destroyed: the actors run until the process ends
  auto& handler = *server->handler;

  bhttp::request_parser<bhttp::string_body> parser;
  parser.header_limit(8 * 1024);
  parser.body_limit(handler.max_body_limit());
  parser.eager(true);
  boost::beast::error_code ec;
  boost::asio::const_buffer bytes{data, size};
  std::size_t used = 0;
  // Beast takes the header first, then the body, as the server's reads do.
  while (!ec && !parser.is_done() && used < size) {
    auto n = parser.put(boost::asio::buffer(static_cast<const char*>(bytes.data()) + used, size - used), ec);
    if (n == 0 && !ec) break;
    used += n;
  }
  if (ec || !parser.is_header_done()) return 0;
  auto verdict = handler.on_header(parser.get().base());
  if (verdict.early) {
    fuzz::require(verdict.early->result_int() >= 400, "an early answer is a refusal");
    return 0;
  }
  if (!parser.is_done() || parser.get().body().size() > verdict.body_limit) return 0;
  if (verdict.before_body) {
    // As the server does: the body is taken only once the gate lets it in, and every earlier
    // body's bytes have been given back by now (each request is answered before the next).
    std::promise<void> let_in;
    verdict.before_body([&let_in] { let_in.set_value(); });
    fuzz::require(let_in.get_future().wait_for(std::chrono::seconds{10}) == std::future_status::ready,
                  "a body is let in once the bodies before it are done");
  }
  auto req = parser.release();
  auto slot = std::make_shared<answer_slot>();
  auto later = slot->future();
  auto res = handler.on_request(req, verdict.context, http::responder{slot, 0});
  if (!res) {
    fuzz::require(later.wait_for(std::chrono::seconds{10}) == std::future_status::ready, "every request is answered");
    res = later.get();
  }
  auto status = res->result_int();
  fuzz::require(status >= 200 && status < 600, "the answer has a status");
  fuzz::require(res->body().payload_size() == res->body().flatten().size(), "the answer's size is its body's");
  return 0;
}
