#include "catalog/settle_actor.hpp"

namespace z402::catalog {
namespace {

using self_ptr = settle_actor::stateful_pointer<settle_state>;

// Counted and logged, at most one line a second so a flood of bad events cannot flood the log.
void answer(self_ptr self, const settle_completion& done, settle_outcome outcome) {
  auto& st = self->state;
  if (outcome.state == settle_outcome::status::success) {
    st.ctx.stats->settles_counted.fetch_add(1, std::memory_order_relaxed);
  } else {
    st.ctx.stats->count_rejection(outcome.cause);
    ++st.unlogged_rejections;
    auto now = self->clock().now();
    if (now - st.last_log >= std::chrono::seconds{1}) {
      st.ctx.log.with_component("catalog.settle")
          .warning("settle events not catalogued",
                   {{"count", st.unlogged_rejections}, {"cause", to_string(outcome.cause)}, {"latest", outcome.reason}});
      st.unlogged_rejections = 0;
      st.last_log = now;
    }
  }
  done(std::move(outcome));
}

// A payment already counted, or reported again while being counted: answered as the first.
void answer_repeat(self_ptr self, const settle_completion& done, settle_outcome first) {
  self->state.ctx.stats->settles_repeated.fetch_add(1, std::memory_order_relaxed);
  done(std::move(first));
}

// The first report of `payment` has its outcome: remembered if counted, and every repeat that
// waited gets the same answer.
void answer_first(self_ptr self, const rules::payment_id& payment, const settle_completion& done, settle_outcome outcome) {
  auto& st = self->state;
  std::vector<settle_completion> repeats;
  if (auto waiting = st.counting.find(payment); waiting != st.counting.end()) {
    repeats = std::move(waiting->second);
    st.counting.erase(waiting);
  }
  if (outcome.state == settle_outcome::status::success) st.counted.insert({payment, st.ctx.clock->now_ms()});
  for (auto& repeat : repeats) answer_repeat(self, repeat, outcome);
  answer(self, done, std::move(outcome));
}

void dispatch(self_ptr self, const std::string& provider) {
  auto& q = self->state.queues[provider];
  if (q.in_flight || q.events.empty()) return;
  q.in_flight = true;
  auto answers = std::make_shared<std::vector<settle_completion>>(std::move(q.answers));
  q.answers.clear();
  auto payments = std::make_shared<std::vector<rules::payment_id>>(std::move(q.payments));
  q.payments.clear();
  auto events = std::move(q.events);
  q.events.clear();
  auto finish = [=] {
    self->state.queues[provider].in_flight = false;
    dispatch(self, provider);
  };
  self->request(self->state.directory->get(provider), caf::infinite, atom::settled::value, std::move(events))
      .then(
          [=](const settle_outcomes& outcomes) {
            for (std::size_t i = 0; i < answers->size(); ++i)
              answer_first(self, (*payments)[i], (*answers)[i],
                           i < outcomes.size() ? outcomes[i]
                                               : settle_outcome::rejected(settle_rejection::unavailable, "the catalog lost this event"));
            finish();
          },
          [=](caf::error&) {
            for (std::size_t i = 0; i < answers->size(); ++i)
              answer_first(self, (*payments)[i], (*answers)[i],
                           settle_outcome::rejected(settle_rejection::unavailable, "the catalog is unavailable"));
            finish();
          });
}

// Queues one event for its provider; returns the provider's name, or nullptr when it is answered
// here (a repeat of a counted payment, no provider with its payTo) or waits for the first report
// of its payment.
const std::string* enqueue(self_ptr self, rules::settlement& event, settle_completion& done) {
  auto& st = self->state;
  if (st.counted.contains(event.payment(), st.ctx.clock->now_ms())) {
    answer_repeat(self, done, settle_outcome::success());
    return nullptr;
  }
  if (auto waiting = st.counting.find(event.payment()); waiting != st.counting.end()) {
    waiting->second.push_back(std::move(done));
    return nullptr;
  }
  auto who = st.provider_of.find(event.pay_to());
  if (who == st.provider_of.end()) {
    answer(self, done, settle_outcome::rejected(settle_rejection::unknown_payee, "paymentRequirements.payTo: no provider is registered with this payTo"));
    return nullptr;
  }
  st.counting.emplace(event.payment(), std::vector<settle_completion>{});
  auto& q = st.queues[who->second];
  q.payments.push_back(event.payment());
  q.events.push_back(std::move(event));
  q.answers.push_back(std::move(done));
  return &who->second;
}

}  // namespace

settle_actor::behavior_type settle(settle_actor::stateful_pointer<settle_state> self, engine_context ctx,
                                   std::shared_ptr<provider_directory> directory, std::vector<payment_record> remembered) {
  self->state.ctx = std::move(ctx);
  self->state.directory = std::move(directory);
  auto& limits = self->state.ctx.limits;
  self->state.counted = payment_ledger{limits.max_remembered_payments, limits.payment_memory.count()};
  for (auto& r : remembered) self->state.counted.insert(r);
  return {
      [=](atom::providers, const payee_map& payees) { self->state.provider_of = payees; },
      [=](atom::settle, rules::settlement& event, settle_completion& done) {
        if (auto* provider = enqueue(self, event, done)) dispatch(self, *provider);
      },
      [=](atom::settle, settle_batch& events, settle_answers& answers) {
        std::vector<std::string> touched;
        for (std::size_t i = 0; i < events.size(); ++i)
          if (auto* provider = enqueue(self, events[i], answers[i])) touched.push_back(*provider);
        for (auto& provider : touched) dispatch(self, provider);
      },
  };
}

}  // namespace z402::catalog
