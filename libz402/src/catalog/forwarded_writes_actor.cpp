#include "catalog/forwarded_writes_actor.hpp"

#include <atomic>

namespace z402::catalog {
namespace {

using self_ptr = writes_actor::stateful_pointer<writes_state>;

// Hands a forwarded write to the provider's PROVIDER as the engine does (`what` and `command`,
// then a completion); the PROVIDER's outcome comes back to WRITES under a ticket, which answers
// the follower's request with it.
template <class Atom, class Command>
caf::typed_response_promise<write_outcome> hand_to_provider(self_ptr self, Atom what, const std::string& provider, Command command) {
  auto ticket = self->state.next_ticket++;
  auto promise = self->make_response_promise<write_outcome>();
  self->state.writes.emplace(ticket, promise);
  writes_actor me = self;
  write_completion done{[me, ticket](write_outcome o) { caf::anon_send(me, atom::answered::value, ticket, std::move(o)); },
                        write_outcome::unavailable("the primary is shutting down")};
  caf::anon_send(self->state.directory->get(provider), what, std::move(command), std::move(done));
  return promise;
}

// Every event's outcome, collected from whichever PROVIDER threads answer, then sent back once.
struct collected_outcomes {
  settle_outcomes outcomes;
  std::atomic<std::size_t> left;
  writes_actor writes;
  std::uint64_t ticket;
  collected_outcomes(std::size_t n, writes_actor w, std::uint64_t t) : outcomes(n), left(n), writes(std::move(w)), ticket(t) {}
};

}  // namespace

writes_actor::behavior_type forwarded_writes_handler(writes_actor::stateful_pointer<writes_state> self,
                                                     std::shared_ptr<provider_directory> directory, settle_actor settle) {
  self->state.directory = std::move(directory);
  self->state.settle = std::move(settle);
  return {
      [=](atom::declare a, std::string& provider, declare_command& cmd) { return hand_to_provider(self, a, provider, std::move(cmd)); },
      [=](atom::repeat a, std::string& provider, std::string& digest) { return hand_to_provider(self, a, provider, std::move(digest)); },
      [=](atom::delist a, std::string& provider, delist_command& cmd) { return hand_to_provider(self, a, provider, std::move(cmd)); },
      [=](atom::settle, settle_batch& events) {
        auto ticket = self->state.next_ticket++;
        auto promise = self->make_response_promise<settle_outcomes>();
        if (events.empty()) {
          promise.deliver(settle_outcomes{});
          return promise;
        }
        self->state.settles.emplace(ticket, promise);
        auto all = std::make_shared<collected_outcomes>(events.size(), self, ticket);
        settle_answers answers;
        answers.reserve(events.size());
        for (std::size_t i = 0; i < events.size(); ++i)
          answers.emplace_back(
              [all, i](settle_outcome o) {
                all->outcomes[i] = std::move(o);
                if (all->left.fetch_sub(1, std::memory_order_acq_rel) == 1)
                  caf::anon_send(all->writes, atom::answered::value, all->ticket, std::move(all->outcomes));
              },
              settle_outcome::rejected(settle_rejection::unavailable, "the primary is shutting down"));
        caf::anon_send(self->state.settle, atom::settle::value, std::move(events), std::move(answers));
        return promise;
      },
      [=](atom::answered, std::uint64_t ticket, write_outcome& outcome) {
        auto it = self->state.writes.find(ticket);
        if (it == self->state.writes.end()) return;
        it->second.deliver(std::move(outcome));
        self->state.writes.erase(it);
      },
      [=](atom::answered, std::uint64_t ticket, settle_outcomes& outcomes) {
        auto it = self->state.settles.find(ticket);
        if (it == self->state.settles.end()) return;
        it->second.deliver(std::move(outcomes));
        self->state.settles.erase(it);
      },
  };
}

}  // namespace z402::catalog
