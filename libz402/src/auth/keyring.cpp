#include "z402/auth/keyring.hpp"

#include "z402/auth/crypto.hpp"
#include "z402/config/atomic_file.hpp"
#include "z402/wire/json.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <fcntl.h>
#include <stdexcept>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace z402::auth {
namespace {

constexpr std::string_view key_prefix = "z402pk_";
constexpr std::string_view settle_key_prefix = "z402sk_";

// An exclusive lock on <data-dir>/providers.lock for the duration of one CLI edit.
class edit_lock {
 public:
  explicit edit_lock(const std::filesystem::path& data_dir) {
    std::filesystem::create_directories(data_dir);
    auto path = data_dir / "providers.lock";
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd_ < 0 || ::flock(fd_, LOCK_EX) != 0) throw std::runtime_error("cannot lock " + path.string());
  }
  ~edit_lock() { ::close(fd_); }
  edit_lock(const edit_lock&) = delete;
  edit_lock& operator=(const edit_lock&) = delete;

 private:
  int fd_ = -1;
};

void save_keyring(const std::filesystem::path& file, const keyring& k) {
  boost::json::array arr;
  for (auto& p : k.providers)
    arr.push_back({{"name", p.name}, {"payTo", p.pay_to}, {"keySha256", p.key_hash}, {"createdMs", p.created_ms}});
  boost::json::array settle;
  for (auto& sk : k.settle_keys) settle.push_back({{"keySha256", sk.key_hash}, {"createdMs", sk.created_ms}});
  auto text = boost::json::serialize(
      boost::json::object{{"format", "z402-providers"}, {"version", 1}, {"providers", arr}, {"settleKeys", settle}});
  if (auto written = config::write_file_atomically(file, text); !written) throw std::runtime_error(written.error().reason);
}

provider_record& existing(keyring& k, std::string_view name) {
  auto it = std::find_if(k.providers.begin(), k.providers.end(), [&](auto& p) { return p.name == name; });
  if (it == k.providers.end()) throw std::runtime_error("no provider named " + std::string{name});
  return *it;
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

std::optional<std::string> invalid_provider_name(std::string_view name) {
  bool ok = !name.empty() && name.size() <= max_provider_name && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
  if (ok) return std::nullopt;
  return "a provider name is 1-" + std::to_string(max_provider_name) + " characters of A-Z a-z 0-9 . _ -";
}

std::optional<std::string> invalid_pay_to(std::string_view pay_to) {
  bool ok = !pay_to.empty() && pay_to.size() <= max_pay_to &&
            std::all_of(pay_to.begin(), pay_to.end(), [](char c) { return c > 0x20 && c < 0x7f; });
  if (ok) return std::nullopt;
  return "a payTo address is 1-" + std::to_string(max_pay_to) + " printable ASCII characters without spaces";
}

std::filesystem::path keyring_path(const std::filesystem::path& data_dir) { return data_dir / "providers.json"; }

keyring load_keyring(const std::filesystem::path& file) {
  auto text = config::read_file(file);
  if (!text && text.error().code == errc::not_found) return {};
  if (!text) throw std::runtime_error(text.error().reason);
  auto doc = wire::parse_strict(*text, 8);
  keyring k;
  try {
    if (!doc) throw std::runtime_error(doc.error().reason);
    for (auto& v : doc->as_object().at("providers").as_array()) {
      auto& o = v.as_object();
      k.providers.push_back({o.at("name").as_string().c_str(), o.at("payTo").as_string().c_str(),
                             o.at("keySha256").as_string().c_str(), o.at("createdMs").to_number<std::int64_t>()});
    }
    if (auto* settle = doc->as_object().if_contains("settleKeys"))
      for (auto& v : settle->as_array()) {
        auto& o = v.as_object();
        k.settle_keys.push_back({o.at("keySha256").as_string().c_str(), o.at("createdMs").to_number<std::int64_t>()});
      }
  } catch (const std::exception& e) {
    throw std::runtime_error(file.string() + " is malformed: " + e.what());
  }
  return k;
}

std::string add_provider(const std::filesystem::path& data_dir, std::string_view name, std::string_view pay_to,
                         std::int64_t now_ms) {
  if (auto why = invalid_provider_name(name)) throw std::runtime_error(*why);
  if (auto why = invalid_pay_to(pay_to)) throw std::runtime_error(*why);
  edit_lock lock{data_dir};
  auto file = keyring_path(data_dir);
  auto k = load_keyring(file);
  if (k.find(name)) throw std::runtime_error("a provider named " + std::string{name} + " exists already");
  // Settles find their provider by payTo, so one address belongs to one provider.
  for (auto& p : k.providers)
    if (p.pay_to == pay_to) throw std::runtime_error("provider " + p.name + " has that payTo already");
  auto key = random_key(key_prefix);
  k.providers.push_back({std::string{name}, std::string{pay_to}, sha256_hex(key), now_ms});
  save_keyring(file, k);
  return key;
}

std::string rotate_provider_key(const std::filesystem::path& data_dir, std::string_view name) {
  edit_lock lock{data_dir};
  auto file = keyring_path(data_dir);
  auto k = load_keyring(file);
  auto key = random_key(key_prefix);
  existing(k, name).key_hash = sha256_hex(key);
  save_keyring(file, k);
  return key;
}

void remove_provider(const std::filesystem::path& data_dir, std::string_view name) {
  edit_lock lock{data_dir};
  auto file = keyring_path(data_dir);
  auto k = load_keyring(file);
  existing(k, name);
  std::erase_if(k.providers, [&](auto& p) { return p.name == name; });
  save_keyring(file, k);
}

std::string create_settle_key(const std::filesystem::path& data_dir, std::int64_t now_ms) {
  edit_lock lock{data_dir};
  auto file = keyring_path(data_dir);
  auto k = load_keyring(file);
  auto key = random_key(settle_key_prefix);
  k.settle_keys.push_back({sha256_hex(key), now_ms});
  save_keyring(file, k);
  return key;
}

key_store::key_store(std::filesystem::path file, telemetry::logger log)
    : file_(std::move(file)), log_(log.with_component("auth.keyring")), current_(std::make_shared<const keyring>()) {}

keyring_change key_store::reload() {
  auto stamp = file_stamp(file_);
  if (stamp == stamp_) return {};
  std::shared_ptr<const keyring> next;
  try {
    next = std::make_shared<const keyring>(load_keyring(file_));
  } catch (const std::exception& e) {
    log_.error("keeping the previous provider keys", {{"reason", e.what()}});
    stamp_ = stamp;
    return {};
  }
  stamp_ = stamp;
  auto previous = current();
  current_.store(next, std::memory_order_release);
  keyring_change change{true, {}};
  for (auto& p : previous->providers)
    if (!next->find(p.name)) change.removed.push_back(p.name);
  return change;
}

std::optional<provider_record> key_store::authenticate(std::string_view presented) const {
  auto hash = sha256_hex(presented);
  auto k = current();
  const provider_record* match = nullptr;
  // Every record is compared, so the time taken does not say which one matched.
  for (auto& p : k->providers)
    if (constant_time_equal(hash, p.key_hash)) match = &p;
  if (!match) return std::nullopt;
  return *match;
}

bool key_store::is_settle_key(std::string_view presented) const {
  auto hash = sha256_hex(presented);
  bool match = false;
  for (auto& sk : current()->settle_keys) match |= constant_time_equal(hash, sk.key_hash);
  return match;
}

}  // namespace z402::auth
