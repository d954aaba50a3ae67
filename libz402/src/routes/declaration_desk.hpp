#pragma once
// POST and DELETE /discovery/declarations, from the body read to the answer, in one direction
// (docs/architecture.md, "A declaration's walk"):
//
//   io thread:     the slot admitted, the body handed over
//   checks thread: its digest; the rules, or what the checker recalls (declaration_checker)
//   PROVIDER:      a heartbeat moves lastSeen on; any other declaration is upserted
//   REGISTRY:      the catalog's budgets; published for readers
//   the answer:    the completion writes the response on the connection's io thread
//
// The checks thread is there because up to 17 MiB of JSON and a schema per item take
// milliseconds, which on an io thread every read would wait behind, and on an actor's every
// settle of that provider. Nothing comes back to it from the catalog.
#include "z402/auth/keyring.hpp"
#include "z402/catalog/engine.hpp"
#include "http/byte_budget.hpp"
#include "z402/http/message.hpp"
#include "routes/declaration_checker.hpp"
#include "rules/rule_family.hpp"
#include "z402/telemetry/metrics.hpp"

#include <boost/asio/any_io_executor.hpp>

#include <array>
#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>

namespace z402::routes {

/// Declarations by outcome, for /metrics.
struct declaration_metrics {
  telemetry::counter accepted;     // 200, heartbeats included
  telemetry::counter unavailable;  // 503: overloaded or the catalog is stopping
  std::array<telemetry::counter, rules::rule_families.size()> refused;  // 400, by rule family
};

class declaration_desk {
 public:
  /// Admission control: CAF mailboxes are unbounded, so writes above this get 503 at once.
  static constexpr std::size_t max_writes_in_flight = 1024;
  /// 128 items of up to 128 KiB, plus framing.
  static constexpr std::size_t body_limit = 17u << 20;

  /// `checks` runs the rules (one thread); `body_bytes_in_flight` bounds the bodies held at once
  /// (config::bazaar_config::declaration_bytes_in_flight).
  declaration_desk(catalog::engine& engine, boost::asio::any_io_executor checks, std::size_t body_bytes_in_flight);

  /// POST: `reply` runs once, on the engine's thread or this one. `body_bytes` is the body's
  /// room in body_budget(), given back with the body once it is checked.
  void declare(http::request& req, const auth::provider_record& provider, http::byte_budget::held body_bytes,
               std::function<void(http::response)> reply);

  /// DELETE: the provider removes its own items; 200 {"removed":N}.
  void delist(const http::request& req, const auth::provider_record& provider, std::function<void(http::response)> reply);

  /// The bytes of declaration bodies held at once, from their read until their checks are done
  /// (byte_budget.hpp): the write slots bound how many, this how large they are together.
  http::byte_budget& body_budget() { return body_bytes_; }
  const http::byte_budget& body_budget() const { return body_bytes_; }
  const declaration_metrics& metrics() const { return metrics_; }

 private:
  class write_slot;
  using slot_ptr = std::shared_ptr<const write_slot>;
  slot_ptr admit();
  /// On the checks thread: the rules, then the one hop to the catalog.
  void check_and_send(const std::string& body, const auth::provider_record& provider, slot_ptr slot,
                      std::function<void(http::response)> reply);
  http::response declared(const catalog::write_outcome& outcome);

  catalog::engine& engine_;
  boost::asio::any_io_executor checks_;
  declaration_checker checker_;  // used only on checks_
  std::atomic<std::size_t> writes_in_flight_{0};
  http::byte_budget body_bytes_;
  declaration_metrics metrics_;
};

}  // namespace z402::routes
