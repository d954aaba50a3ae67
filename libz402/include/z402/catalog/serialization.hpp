#pragma once
// How what the catalog's actors exchange crosses machines: CAF inspect overloads for the types
// a follower or a remote rail node sends or receives (item content and records, item changes,
// declarations, delistings, settlements and the outcomes of both), the errors they answer
// with, and one call that registers all of it with an actor system.
//
// Contents are written whole, derived facts and search terms included, so a receiver holds
// exactly what the sender held (the same bytes for the same item) without parsing any JSON.
// An item is written with the UTC day it was rendered for, for the same reason.
#include "z402/catalog/messages.hpp"
#include "z402/error.hpp"

#include <caf/actor_system_config.hpp>
#include <caf/error.hpp>
#include <caf/meta/load_callback.hpp>
#include <caf/meta/type_name.hpp>

#include <memory>
#include <string>

namespace z402 {

/// A z402 error code as a caf::error (category "z402"); inside the actor boundary errors are
/// compared by code: `err == errc::catalog_full`.
caf::error make_error(errc code);

/// The same with the error's field and reason, which error_of reads back.
caf::error make_error(const error& e);

/// The z402 error a caf::error carries: its code, field and reason when make_error made it; any
/// other (the actor is gone, a request timed out) is unavailable, with CAF's rendering of it.
error error_of(const caf::error& e);

}  // namespace z402

namespace z402::search {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, document& x) {
  return f(caf::meta::type_name("document"), x.text, x.ends, x.first, x.length, x.origin);
}

}  // namespace z402::search

namespace z402::rules {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, item_identity& x) {
  return f(caf::meta::type_name("item_identity"), x.type, x.resource, x.selector);
}

/// The body travels as its JSON text, and the settlement is read from it again on arrival
/// (rules::parse_settlement): the key and the payment id are made there, as on the first node.
/// Its payee and item travel too, as they did when they were fields (the format between nodes
/// is unchanged), and are read from the body again like the rest.
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, settlement& x) {
  std::string pay_to, body;
  item_identity identity;
  if constexpr (Inspector::reads_state) {
    pay_to = x.pay_to();
    identity = x.identity();
    body = x.body();
  }
  return f(caf::meta::type_name("settlement"), pay_to, identity, body, caf::meta::load_callback([&]() -> caf::error {
             auto read = parse_settlement(body);
             if (!read) return make_error(errc::corrupt);
             x = std::move(*read);
             return caf::none;
           }));
}

}  // namespace z402::rules

namespace z402::catalog {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, item_content& x) {
  return f(caf::meta::type_name("item_content"), x.json, x.filter_keys, x.prices, x.unit, x.doc);
}

/// Shared and immutable where it lives; a new one where it arrives.
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, content_ptr& x) {
  if constexpr (Inspector::reads_state) {
    return f(*x);
  } else {
    auto content = std::make_shared<item_content>();
    auto result = f(*content);
    x = std::move(content);
    return result;
  }
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, item_record& x) {
  return f(caf::meta::type_name("item_record"), x.provider, x.identity, x.content, x.declared, x.seq, x.last_seen_ms,
           x.last_updated_ms, x.usage);
}

/// An item is its record and the day its paidCallsToday was rendered for: the receiver renders
/// the same bytes.
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, item_ptr& x) {
  if constexpr (Inspector::reads_state) {
    auto day = x->rendered_day();
    return f(x->record(), day);
  } else {
    item_record record;
    std::int64_t day = 0;
    auto result = f(record, day);
    x = make_item(std::move(record), day);
    return result;
  }
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, payment_record& x) {
  return f(caf::meta::type_name("payment_record"), x.id.high, x.id.low, x.at_ms);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, item_change& x) {
  return f(caf::meta::type_name("item_change"), x.upserts, x.removed, x.payments);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, catalog_copy& x) {
  return f(caf::meta::type_name("catalog_copy"), x.epoch, x.version, x.items, x.bytes, x.providers, x.sent_ms);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, item_counts& x) {
  return f(caf::meta::type_name("item_counts"), x.seq, x.declared, x.last_seen_ms, x.last_updated_ms, x.usage, x.rendered_day);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, catalog_delta& x) {
  return f(caf::meta::type_name("catalog_delta"), x.epoch, x.from, x.version, x.upserts, x.recounted, x.removed, x.bytes,
           x.providers, x.payments, x.sent_ms);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, declared_content& x) {
  return f(caf::meta::type_name("declared_content"), x.identity, x.content);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, declare_command& x) {
  return f(caf::meta::type_name("declare_command"), x.items, x.digest, x.deadline_ms);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, delist_command& x) {
  return f(caf::meta::type_name("delist_command"), x.all, x.keys, x.deadline_ms);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, write_outcome& x) {
  return f(caf::meta::type_name("write_outcome"), x.state, x.problem.code, x.problem.field, x.problem.reason, x.accepted,
           x.last_seen_ms);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, settle_outcome& x) {
  return f(caf::meta::type_name("settle_outcome"), x.state, x.cause, x.reason);
}

/// Registers with `cfg` every message type above (by name, as remote nodes look them up) and
/// the "z402" error category (so the system renders `z402::catalog_full`). Call it on the
/// config of every actor system that runs the catalog or talks to one, before the system starts.
void register_types(caf::actor_system_config& cfg);

}  // namespace z402::catalog
