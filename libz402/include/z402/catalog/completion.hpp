#pragma once
// A one-shot answer that crosses from an actor back to whoever asked (an HTTP session, an
// embedding rail node). If the message carrying it is dropped (actor gone, system shutting
// down), the last copy's destructor answers with the fallback, so no request can hang.
#include <functional>
#include <memory>
#include <utility>

namespace z402::catalog {

template <class T>
class completion {
 public:
  completion() = default;
  completion(std::function<void(T)> handler, T fallback)
      : state_(std::make_shared<state>(std::move(handler), std::move(fallback))) {}

  /// Answers once; later calls do nothing.
  void operator()(T value) const {
    if (state_ && !state_->answered) {
      state_->answered = true;
      state_->handler(std::move(value));
    }
  }

 private:
  struct state {
    state(std::function<void(T)> h, T f) : handler(std::move(h)), fallback(std::move(f)) {}
    ~state() {
      if (!answered && handler) handler(std::move(fallback));
    }
    std::function<void(T)> handler;
    T fallback;
    bool answered = false;
  };
  std::shared_ptr<state> state_;
};

}  // namespace z402::catalog
