#pragma once
// One error model: a stable code, the field at fault and the reason; and
// expected<T>, a value or such an error. The codes are the `error` of every JSON error the API
// answers (docs/contract.md §4), so the HTTP status comes from the code, in one table (http_status),
// and callers compare codes, never message text. Inside the actor boundary the same codes travel
// as caf::error (catalog/messages.hpp).
//
// Exceptions are kept for broken invariants only (a histogram built with bad bounds, a CSPRNG,
// SHA-256 or zlib that fails), never for input, files or peers; and a third-party library's own
// (valijson) are caught where it is called.
//
// Not std::expected: libstdc++ 12 has it for g++ -std=c++23, but clang 14 (the sanitizer and
// fuzzing builds) cannot compile that header.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace z402 {

enum class errc : std::uint8_t {
  invalid_request = 1,     // 400: a field of the body breaks a rule
  invalid_filter,          // 400: a query parameter is malformed
  invalid_cursor,          // 400: a search cursor was tampered with, expired or is another query's
  query_required,          // 400: a search without a query
  bad_request,             // 400: not HTTP/1.1
  unauthorized,            // 401: no key, or not a known one
  forbidden,               // 403: a known key without the right (a provider key on settles)
  not_found,               // 404
  method_not_allowed,      // 405
  body_too_large,          // 413
  unsupported_media_type,  // 415
  headers_too_large,       // 431
  catalog_full,            // between actors: a write would pass a global budget (the API says invalid_request)
  overloaded,              // 503: too many writes in flight
  unavailable,             // 503: the catalog is stopping, or an actor or the primary is gone
  io_error,                // a file could not be read or written (never an HTTP answer)
  corrupt,                 // a file does not hold what it must (never an HTTP answer)
  timed_out,               // a call to another server ran out of time (never an HTTP answer)
};

/// The code as the API spells it ("invalid_filter").
std::string_view to_string(errc code);
/// The code the API spells `name`; nullopt for a name it does not document.
std::optional<errc> errc_from_string(std::string_view name);
/// The HTTP status that answers the code.
unsigned http_status(errc code);

struct error {
  errc code = errc::invalid_request;
  std::string field;   // the field or parameter at fault, for machines; empty when none is
  std::string reason;  // one sentence for people that names the field (never a key)
  std::optional<std::size_t> item = std::nullopt;  // which item of a declaration, when one item broke a rule

  /// One line for people and logs: "items[2].accepts[0].payTo: must be ...".
  std::string message() const;
};

/// `field` breaks a rule, for `reason`: the answer of every rule and every parser of untrusted
/// input (errc::invalid_request; `field` is the JSON path inside the item or body, or empty).
inline error refused(std::string field, std::string reason) {
  return {errc::invalid_request, std::move(field), std::move(reason)};
}

/// A value, or the error that kept it from being made.
template <class T>
class expected {
 public:
  expected(T value) : v_(std::in_place_index<0>, std::move(value)) {}
  expected(z402::error e) : v_(std::in_place_index<1>, std::move(e)) {}

  bool has_value() const { return v_.index() == 0; }
  explicit operator bool() const { return has_value(); }
  T& operator*() { return std::get<0>(v_); }
  const T& operator*() const { return std::get<0>(v_); }
  T* operator->() { return &std::get<0>(v_); }
  const T* operator->() const { return &std::get<0>(v_); }
  const z402::error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, z402::error> v_;
};

/// Success, or an error.
template <>
class expected<void> {
 public:
  expected() = default;
  expected(z402::error e) : e_(std::move(e)) {}
  bool has_value() const { return !e_; }
  explicit operator bool() const { return has_value(); }
  const z402::error& error() const { return *e_; }

 private:
  std::optional<z402::error> e_;
};

}  // namespace z402
