#pragma once
// A paid service on http::server: unpaid calls get the x402 v2 402 (PAYMENT-REQUIRED), paid
// ones are checked by the verifier and answered by the route; /health says whether the service
// is ready and how many paid calls it delivered today; /.well-known/x402 is its manifest.
#include "z402/http/handler.hpp"
#include "z402/kit/daily_counter.hpp"
#include "z402/kit/paid_route.hpp"
#include "z402/kit/verifier.hpp"

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace z402::kit {

struct service_options {
  service_identity identity;
  std::vector<paid_route> routes;
  std::shared_ptr<payment_verifier> verifier;
  /// The service's own readiness checks (e.g. a backend it needs answers); thread-safe.
  std::function<bool()> readiness = [] { return true; };
  /// Called after a paid call was delivered with a 2xx: {x402Version, paymentPayload,
  /// paymentRequirements}, the settle event a rail reports to the catalog. Any thread.
  std::function<void(boost::json::object)> on_delivered;
  std::function<std::int64_t()> now_ms;  // wall clock for callsToday; the system's when empty
  std::size_t body_limit = 64u << 10;
};

class paid_service final : public http::handler {
 public:
  explicit paid_service(service_options options);

  /// Ready: its own checks pass and it is not paused.
  bool ready() const;
  /// Operator hook: a paused service reports 503 on /health and stops declaring.
  void pause(bool paused) { paused_ = paused; }
  std::uint32_t calls_today() const;
  /// The body of POST /discovery/declarations: every route, built from its 402.
  const boost::json::object& declaration() const { return declaration_; }
  const service_identity& identity() const { return options_.identity; }
  const std::string& manifest() const { return manifest_; }

  std::size_t max_body_limit() const override { return options_.body_limit; }
  http::header_verdict on_header(const http::request_header& req) override;
  std::optional<http::response> on_request(http::request& req, std::any& context, const http::responder& reply) override;

 private:
  struct match {
    const paid_route* route = nullptr;
    boost::json::object params;
    bool path_known = false;  // some route has this path, maybe under another method
  };
  match find(std::string_view method, std::string_view path) const;
  http::response paid_call(const http::request& req, const paid_route& route, boost::json::object params,
                           std::string_view path);
  http::response health() const;
  std::int64_t now() const;

  service_options options_;
  boost::json::object declaration_;
  std::string manifest_;
  std::atomic<bool> paused_{false};
  daily_counter delivered_;
};

}  // namespace z402::kit
