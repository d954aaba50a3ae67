#include "routes/declaration_desk.hpp"

#include "z402/core/crypto.hpp"
#include "z402/wire/iso_time.hpp"
#include "z402/wire/json.hpp"
#include "routes/refusal.hpp"
#include "rules/delisting.hpp"

#include <boost/asio/post.hpp>
#include <boost/json.hpp>

namespace z402::routes {

/// One admitted write. A slot counts in writes_in_flight_ until its last copy is gone (held by
/// whatever answers the write, on any path), so no path can forget to release it, or release it
/// twice.
class declaration_desk::write_slot {
 public:
  explicit write_slot(std::atomic<std::size_t>& in_flight) : in_flight_(in_flight) {}
  ~write_slot() { in_flight_.fetch_sub(1); }
  write_slot(const write_slot&) = delete;
  write_slot& operator=(const write_slot&) = delete;

 private:
  std::atomic<std::size_t>& in_flight_;
};

namespace {

http::response overloaded() { return http::error_response(503, "overloaded", "too many writes in flight; retry shortly"); }

const catalog::write_outcome shutting_down = catalog::write_outcome::unavailable("the catalog is shutting down");

}  // namespace

declaration_desk::declaration_desk(catalog::engine& engine, boost::asio::any_io_executor checks, std::size_t body_bytes_in_flight)
    : engine_(engine),
      checks_(std::move(checks)),
      checker_(engine.context().terms, engine.context().allow_http_resources, engine.context().limits.max_items_per_provider),
      body_bytes_(body_bytes_in_flight) {}

declaration_desk::slot_ptr declaration_desk::admit() {
  if (writes_in_flight_.fetch_add(1) < max_writes_in_flight) return std::make_shared<const write_slot>(writes_in_flight_);
  writes_in_flight_.fetch_sub(1);
  return nullptr;
}

void declaration_desk::declare(http::request& req, const auth::provider_record& provider, http::byte_budget::held body_bytes,
                               std::function<void(http::response)> reply) {
  // Admitted before the checks: the queue of declarations waiting for them is bounded too.
  auto slot = admit();
  if (!slot) {
    metrics_.unavailable.add();
    return reply(overloaded());
  }
  // The body's bytes stay counted in the budget for as long as the body itself lives: until it is checked.
  auto held = std::make_shared<std::pair<std::string, http::byte_budget::held>>(std::move(req.body()), std::move(body_bytes));
  boost::asio::post(checks_, [this, held = std::move(held), provider, slot = std::move(slot), reply = std::move(reply)]() mutable {
    check_and_send(held->first, provider, std::move(slot), std::move(reply));
  });
}

void declaration_desk::check_and_send(const std::string& body, const auth::provider_record& provider, slot_ptr slot,
                                      std::function<void(http::response)> reply) {
  // The digest recognises a heartbeat: the checker then recalls the command without parsing
  // the body, and the PROVIDER only moves lastSeen on. The newest snapshot is loaded, not the
  // thread's cached one, which would keep an old catalog alive between declarations.
  auto command = checker_.check(provider.name, provider.pay_to, body, crypto::sha256_hex(body), *engine_.snapshots().load());
  if (!command) {
    auto& e = command.error();
    metrics_.refused[rules::rule_family_of(e.field, e.item.has_value())].add();
    return reply(invalid_request(e));
  }
  engine_.declare(provider.name, std::move(*command),
                  catalog::write_completion{[this, reply = std::move(reply), slot = std::move(slot)](catalog::write_outcome o) {
                                              reply(declared(o));
                                            },
                                            shutting_down});
}

http::response declaration_desk::declared(const catalog::write_outcome& outcome) {
  using status = catalog::write_outcome::status;
  if (outcome.state == status::ok) {
    metrics_.accepted.add();
    boost::json::object answer{{"accepted", outcome.accepted}, {"lastSeen", wire::format_iso_ms(outcome.last_seen_ms)}};
    return http::json_response(200, boost::json::serialize(answer));
  }
  if (outcome.state == status::refused) {
    metrics_.refused[rules::budget_family].add();
    // A budget: the API answers invalid_request for the catalog's as for the provider's own.
    return invalid_request(outcome.problem, outcome.problem.reason);
  }
  metrics_.unavailable.add();
  return unavailable_write(engine_.follower(), outcome.problem.reason);
}

void declaration_desk::delist(const http::request& req, const auth::provider_record& provider,
                              std::function<void(http::response)> reply) {
  auto doc = wire::parse_strict(req.body(), declaration_checker::max_body_depth);
  if (!doc) return reply(invalid_request(doc.error()));
  auto named = rules::read_delisting(*doc, engine_.context().limits.max_items_per_provider);
  if (!named) return reply(invalid_request(named.error()));
  auto slot = admit();
  if (!slot) return reply(overloaded());
  catalog::delist_command cmd{named->all, {}};
  for (auto& id : named->items) cmd.keys.push_back(id.key());
  engine_.delist(provider.name, std::move(cmd),
                 catalog::write_completion{[this, slot = std::move(slot), reply = std::move(reply)](catalog::write_outcome o) {
                                             if (o.state != catalog::write_outcome::status::ok) return reply(unavailable_write(engine_.follower(), o.problem.reason));
                                             reply(http::json_response(200, boost::json::serialize(boost::json::object{{"removed", o.accepted}})));
                                           },
                                           shutting_down});
}

}  // namespace z402::routes
