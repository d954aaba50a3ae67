#include "z402/catalog/settle_actor.hpp"

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

void dispatch(self_ptr self, const std::string& provider) {
  auto& q = self->state.queues[provider];
  if (q.in_flight || q.events.empty()) return;
  q.in_flight = true;
  auto answers = std::make_shared<std::vector<settle_completion>>(std::move(q.answers));
  q.answers.clear();
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
              answer(self, (*answers)[i], i < outcomes.size() ? outcomes[i]
                                                              : settle_outcome::rejected(settle_rejection::unavailable, "the catalog lost this event"));
            finish();
          },
          [=](caf::error&) {
            for (auto& done : *answers) answer(self, done, settle_outcome::rejected(settle_rejection::unavailable, "the catalog is unavailable"));
            finish();
          });
}

// Queues one event for its provider; returns the provider's name, or nullptr when no provider
// has the payTo (then the event is answered here).
const std::string* enqueue(self_ptr self, rules::settlement& event, settle_completion& done) {
  auto& st = self->state;
  auto who = st.provider_of.find(event.pay_to);
  if (who == st.provider_of.end()) {
    answer(self, done, settle_outcome::rejected(settle_rejection::unknown_payee, "paymentRequirements.payTo: no provider is registered with this payTo"));
    return nullptr;
  }
  auto& q = st.queues[who->second];
  q.events.push_back(std::move(event));
  q.answers.push_back(std::move(done));
  return &who->second;
}

}  // namespace

settle_actor::behavior_type settle(settle_actor::stateful_pointer<settle_state> self, engine_context ctx,
                                   std::shared_ptr<provider_directory> directory) {
  self->state.ctx = std::move(ctx);
  self->state.directory = std::move(directory);
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
