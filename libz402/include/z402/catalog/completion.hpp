#pragma once
// A one-shot answer that crosses from an actor back to whoever asked (an HTTP session, an
// embedding rail node). If the message carrying it is dropped (actor gone, system shutting
// down), the last copy's destructor answers with the fallback, so no request can hang.
#include <memory>
#include <type_traits>
#include <utility>

namespace z402::catalog {

template <class T>
class completion {
 public:
  completion() = default;
  /// The handler is kept beside the fallback, in the same allocation as the count of copies:
  /// one allocation a completion. A settle makes two (its caller's and the engine's, which
  /// gives back its place in flight), on the caller's thread, freed on the catalog's.
  template <class F, class = std::enable_if_t<std::is_invocable_v<F&, T>>>
  completion(F handler, T fallback)
      : state_(std::make_shared<state<std::decay_t<F>>>(std::move(handler), std::move(fallback))) {}

  /// Answers once; later calls do nothing.
  void operator()(T value) const {
    if (state_ && !state_->answered) {
      state_->answered = true;
      state_->answer(std::move(value));
    }
  }

 private:
  struct state_base {
    explicit state_base(T f) : fallback(std::move(f)) {}
    virtual ~state_base() = default;
    virtual void answer(T value) = 0;
    T fallback;
    bool answered = false;
  };
  template <class F>
  struct state final : state_base {
    state(F h, T f) : state_base(std::move(f)), handler(std::move(h)) {}
    // Runs before the handler and the fallback are destroyed.
    ~state() override {
      if (!this->answered && callable()) handler(std::move(this->fallback));
    }
    void answer(T value) override {
      if (callable()) handler(std::move(value));
    }
    // An empty std::function (a caller that wants no answer) is never called.
    bool callable() const {
      if constexpr (std::is_constructible_v<bool, const F&>) return static_cast<bool>(handler);
      else return true;
    }
    F handler;
  };
  std::shared_ptr<state_base> state_;
};

}  // namespace z402::catalog
