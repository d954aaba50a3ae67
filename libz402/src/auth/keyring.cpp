#include "z402/auth/keyring.hpp"

#include "z402/core/crypto.hpp"
#include "z402/config/atomic_file.hpp"
#include "z402/wire/json.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace z402::auth {
namespace {

constexpr std::string_view key_prefix = "z402pk_";
constexpr std::string_view settle_key_prefix = "z402sk_";

// An exclusive lock on <data-dir>/providers.lock for the duration of one CLI edit.
class edit_lock {
 public:
  static expected<edit_lock> take(const std::filesystem::path& data_dir) {
    std::error_code ec;
    std::filesystem::create_directories(data_dir, ec);
    if (ec) return error{errc::io_error, "", "cannot create " + data_dir.string() + ": " + ec.message()};
    auto path = data_dir / "providers.lock";
    edit_lock lock{::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600)};
    if (lock.fd_ < 0 || ::flock(lock.fd_, LOCK_EX) != 0)
      return error{errc::io_error, "", "cannot lock " + path.string() + ": " + std::strerror(errno)};
    return lock;
  }
  edit_lock(edit_lock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  edit_lock& operator=(edit_lock&&) = delete;
  ~edit_lock() {
    if (fd_ >= 0) ::close(fd_);
  }

 private:
  explicit edit_lock(int fd) : fd_(fd) {}
  int fd_;
};

expected<void> save_keyring(const std::filesystem::path& file, const keyring& k) {
  boost::json::array arr;
  for (auto& p : k.providers)
    arr.push_back({{"name", p.name}, {"payTo", p.pay_to}, {"keySha256", p.key_hash}, {"createdMs", p.created_ms}});
  boost::json::array settle;
  for (auto& sk : k.settle_keys) settle.push_back({{"keySha256", sk.key_hash}, {"createdMs", sk.created_ms}});
  return config::write_file_atomically(file, boost::json::serialize(boost::json::object{
                                                 {"format", "z402-providers"}, {"version", 1}, {"providers", arr}, {"settleKeys", settle}}));
}

/// One edit of the keyring: under the lock, on what the file holds now, saved atomically.
/// `change` answers what the command shows (a new key), or why nothing changed.
template <class T, class F>
expected<T> edit_keyring(const std::filesystem::path& data_dir, F change) {
  auto lock = edit_lock::take(data_dir);
  if (!lock) return lock.error();
  auto file = keyring_path(data_dir);
  auto k = load_keyring(file);
  if (!k) return k.error();
  expected<T> answer = change(*k);
  if (!answer) return answer;
  if (auto saved = save_keyring(file, *k); !saved) return saved.error();
  return answer;
}

expected<provider_record*> existing(keyring& k, std::string_view name) {
  auto it = std::find_if(k.providers.begin(), k.providers.end(), [&](auto& p) { return p.name == name; });
  if (it == k.providers.end()) return error{errc::not_found, "name", "no provider named " + std::string{name}};
  return &*it;
}

/// `field` of a keyring entry, as the type the file must hold there.
expected<std::string> text_field(const boost::json::object& o, std::string_view field) {
  auto* s = wire::find_string(o, field);
  if (!s) return error{errc::corrupt, std::string{field}, std::string{field} + " is not a string"};
  return std::string{*s};
}

expected<std::int64_t> ms_field(const boost::json::object& o, std::string_view field) {
  auto* v = o.if_contains(field);
  if (!v || !v->is_int64()) return error{errc::corrupt, std::string{field}, std::string{field} + " is not an integer"};
  return v->get_int64();
}

/// The entries of the array `field` (absent: none), each read by `read`.
template <class Read>
expected<void> each_entry(const boost::json::object& doc, std::string_view field, bool required, Read read) {
  auto* v = doc.if_contains(field);
  if (!v && !required) return {};
  if (!v || !v->is_array()) return error{errc::corrupt, std::string{field}, std::string{field} + " is not an array"};
  for (auto& entry : v->get_array()) {
    if (!entry.is_object()) return error{errc::corrupt, std::string{field}, "an entry of " + std::string{field} + " is not an object"};
    if (auto done = read(entry.get_object()); !done) return done;
  }
  return {};
}

expected<keyring> keyring_of(const boost::json::value& doc) {
  if (!doc.is_object()) return error{errc::corrupt, "", "it is not a JSON object"};
  keyring k;
  auto providers = each_entry(doc.get_object(), "providers", true, [&](const boost::json::object& o) -> expected<void> {
    auto name = text_field(o, "name");
    auto pay_to = text_field(o, "payTo");
    auto hash = text_field(o, "keySha256");
    auto created = ms_field(o, "createdMs");
    for (auto* e : {&name, &pay_to, &hash})
      if (!*e) return e->error();
    if (!created) return created.error();
    k.providers.push_back({std::move(*name), std::move(*pay_to), std::move(*hash), *created});
    return {};
  });
  if (!providers) return providers.error();
  auto settle = each_entry(doc.get_object(), "settleKeys", false, [&](const boost::json::object& o) -> expected<void> {
    auto hash = text_field(o, "keySha256");
    auto created = ms_field(o, "createdMs");
    if (!hash) return hash.error();
    if (!created) return created.error();
    k.settle_keys.push_back({std::move(*hash), *created});
    return {};
  });
  if (!settle) return settle.error();
  return k;
}

std::string file_stamp(const std::filesystem::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return "absent";
  return std::to_string(st.st_ino) + ":" + std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

}  // namespace

const provider_record* keyring::find(std::string_view name) const {
  for (auto& p : providers)
    if (p.name == name) return &p;
  return nullptr;
}

constexpr std::size_t max_provider_name = 64;
constexpr std::size_t max_pay_to = 256;

expected<void> check_provider_name(std::string_view name) {
  bool ok = !name.empty() && name.size() <= max_provider_name && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
  if (ok) return {};
  return refused("name", "a provider name is 1-" + std::to_string(max_provider_name) + " characters of A-Z a-z 0-9 . _ -");
}

expected<void> check_pay_to(std::string_view pay_to) {
  bool ok = !pay_to.empty() && pay_to.size() <= max_pay_to &&
            std::all_of(pay_to.begin(), pay_to.end(), [](char c) { return c > 0x20 && c < 0x7f; });
  if (ok) return {};
  return refused("payTo", "a payTo address is 1-" + std::to_string(max_pay_to) + " printable ASCII characters without spaces");
}

std::filesystem::path keyring_path(const std::filesystem::path& data_dir) { return data_dir / "providers.json"; }

expected<keyring> load_keyring(const std::filesystem::path& file) {
  auto text = config::read_file(file);
  if (!text && text.error().code == errc::not_found) return keyring{};
  if (!text) return text.error();
  auto doc = wire::parse_strict(*text, 8);
  auto k = doc ? keyring_of(*doc) : expected<keyring>{doc.error()};
  if (!k) return error{errc::corrupt, k.error().field, file.string() + " is malformed: " + k.error().reason};
  return k;
}

expected<std::string> add_provider(const std::filesystem::path& data_dir, std::string_view name, std::string_view pay_to,
                                   std::int64_t now_ms) {
  if (auto named = check_provider_name(name); !named) return named.error();
  if (auto paid = check_pay_to(pay_to); !paid) return paid.error();
  return edit_keyring<std::string>(data_dir, [&](keyring& k) -> expected<std::string> {
    if (k.find(name)) return refused("name", "a provider named " + std::string{name} + " exists already");
    // Settles find their provider by payTo, so one address belongs to one provider.
    for (auto& p : k.providers)
      if (p.pay_to == pay_to) return refused("payTo", "provider " + p.name + " has that payTo already");
    auto key = crypto::random_key(key_prefix);
    k.providers.push_back({std::string{name}, std::string{pay_to}, crypto::sha256_hex(key), now_ms});
    return key;
  });
}

expected<std::string> rotate_provider_key(const std::filesystem::path& data_dir, std::string_view name) {
  return edit_keyring<std::string>(data_dir, [&](keyring& k) -> expected<std::string> {
    auto record = existing(k, name);
    if (!record) return record.error();
    auto key = crypto::random_key(key_prefix);
    (*record)->key_hash = crypto::sha256_hex(key);
    return key;
  });
}

expected<void> remove_provider(const std::filesystem::path& data_dir, std::string_view name) {
  return edit_keyring<void>(data_dir, [&](keyring& k) -> expected<void> {
    if (auto record = existing(k, name); !record) return record.error();
    std::erase_if(k.providers, [&](auto& p) { return p.name == name; });
    return {};
  });
}

expected<std::string> create_settle_key(const std::filesystem::path& data_dir, std::int64_t now_ms) {
  return edit_keyring<std::string>(data_dir, [&](keyring& k) -> expected<std::string> {
    auto key = crypto::random_key(settle_key_prefix);
    k.settle_keys.push_back({crypto::sha256_hex(key), now_ms});
    return key;
  });
}

expected<keyring_file> read_keyring_file(const std::filesystem::path& file) {
  auto stamp = file_stamp(file);
  auto loaded = load_keyring(file);
  if (!loaded) return loaded.error();
  return keyring_file{std::move(*loaded), std::move(stamp)};
}

key_store::key_store(std::filesystem::path file, telemetry::logger log)
    : file_(std::move(file)), log_(log.with_component("auth.keyring")), current_(std::make_shared<const keyring>()) {}

key_store::key_store(std::filesystem::path file, telemetry::logger log, keyring_file first)
    : file_(std::move(file)),
      log_(log.with_component("auth.keyring")),
      stamp_(std::move(first.stamp)),
      current_(std::make_shared<const keyring>(std::move(first.keys))) {}

keyring_change key_store::reload() {
  auto stamp = file_stamp(file_);
  if (stamp == stamp_) return {};
  auto loaded = load_keyring(file_);
  stamp_ = stamp;
  if (!loaded) {
    log_.error("keeping the previous provider keys", {{"reason", loaded.error().reason}});
    return {};
  }
  auto next = std::make_shared<const keyring>(std::move(*loaded));
  auto previous = current();
  current_.store(next, std::memory_order_release);
  keyring_change change{true, {}};
  for (auto& p : previous->providers)
    if (!next->find(p.name)) change.removed.push_back(p.name);
  return change;
}

std::optional<provider_record> key_store::authenticate(std::string_view presented) const {
  auto hash = crypto::sha256_hex(presented);
  auto k = current();
  const provider_record* match = nullptr;
  // Every record is compared, so the time taken does not say which one matched.
  for (auto& p : k->providers)
    if (crypto::constant_time_equal(hash, p.key_hash)) match = &p;
  if (!match) return std::nullopt;
  return *match;
}

bool key_store::is_settle_key(std::string_view presented) const {
  auto hash = crypto::sha256_hex(presented);
  bool match = false;
  for (auto& sk : current()->settle_keys) match |= crypto::constant_time_equal(hash, sk.key_hash);
  return match;
}

}  // namespace z402::auth
