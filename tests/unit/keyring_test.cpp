#define CAF_SUITE keyring
#include "test.hpp"

#include "z402/core/crypto.hpp"
#include "z402/auth/keyring.hpp"
#include "z402/config/atomic_file.hpp"

#include <filesystem>
#include <thread>

using namespace z402;

namespace {

/// The code `result` failed with; an operator also gets a reason, so it must have one.
template <class T>
std::optional<errc> failure(const expected<T>& result) {
  if (result || result.error().reason.empty()) return std::nullopt;
  return result.error().code;
}

}  // namespace

CAF_TEST(keys are random and prefixed and stored only as hashes) {
  test::temp_dir dir{"z402-keyring"};
  auto key = auth::add_provider(dir.path, "acme", "uregtest1acme", 1);
  CAF_REQUIRE(key);
  CAF_CHECK_EQUAL(key->substr(0, 7), "z402pk_");
  CAF_CHECK_EQUAL(key->size(), 7u + 43u);  // 32 bytes, base64url without padding
  auto other = auth::add_provider(dir.path, "other", "uregtest1other", 1);
  CAF_REQUIRE(other);
  CAF_CHECK_NOT_EQUAL(*key, *other);
  auto text = config::read_file(auth::keyring_path(dir.path));
  CAF_REQUIRE(text);
  CAF_CHECK(text->find(*key) == std::string::npos);
  CAF_CHECK(text->find(crypto::sha256_hex(*key)) != std::string::npos);
}

CAF_TEST(names and payTo are checked and unique) {
  test::temp_dir dir{"z402-keyring"};
  CAF_REQUIRE(auth::add_provider(dir.path, "acme", "uregtest1acme", 1));
  auto before = config::read_file(auth::keyring_path(dir.path));
  CAF_REQUIRE(before);
  CAF_CHECK(failure(auth::add_provider(dir.path, "acme", "uregtest1new", 1)) == errc::invalid_request);
  CAF_CHECK(failure(auth::add_provider(dir.path, "new", "uregtest1acme", 1)) == errc::invalid_request);
  CAF_CHECK(failure(auth::add_provider(dir.path, "bad name", "x", 1)) == errc::invalid_request);
  auto bad_name = auth::add_provider(dir.path, "bad name", "x", 1);
  CAF_CHECK_EQUAL(bad_name.error().field, "name");
  CAF_CHECK(failure(auth::add_provider(dir.path, std::string(65, 'n'), "x", 1)) == errc::invalid_request);
  CAF_CHECK(auth::check_provider_name(std::string(64, 'n')));
  CAF_CHECK(failure(auth::add_provider(dir.path, "spaces", "has space", 1)) == errc::invalid_request);
  auto spaces = auth::add_provider(dir.path, "spaces", "has space", 1);
  CAF_CHECK_EQUAL(spaces.error().field, "payTo");
  CAF_CHECK(auth::check_pay_to(std::string(256, 'p')));
  CAF_CHECK(!auth::check_pay_to(std::string(257, 'p')));
  CAF_CHECK(failure(auth::rotate_provider_key(dir.path, "nobody")) == errc::not_found);
  CAF_CHECK(failure(auth::remove_provider(dir.path, "nobody")) == errc::not_found);
  // A refused edit changes nothing.
  CAF_CHECK(config::read_file(auth::keyring_path(dir.path)) && *config::read_file(auth::keyring_path(dir.path)) == *before);
}

CAF_TEST(the key store follows rotation and removal) {
  test::temp_dir dir{"z402-keyring"};
  auth::key_store store{auth::keyring_path(dir.path), {}};
  CAF_CHECK(store.reload().removed.empty());
  auto key = auth::add_provider(dir.path, "acme", "uregtest1acme", 1);
  CAF_REQUIRE(key);
  CAF_CHECK(!store.authenticate(*key));  // not re-read yet
  store.reload();
  auto who = store.authenticate(*key);
  CAF_REQUIRE(who);
  CAF_CHECK_EQUAL(who->name, "acme");
  CAF_CHECK_EQUAL(who->pay_to, "uregtest1acme");
  auto rotated = auth::rotate_provider_key(dir.path, "acme");
  CAF_REQUIRE(rotated);
  store.reload();
  CAF_CHECK(!store.authenticate(*key));
  CAF_CHECK(store.authenticate(*rotated));
  CAF_CHECK(auth::remove_provider(dir.path, "acme"));
  auto change = store.reload();
  CAF_CHECK(change.changed);
  CAF_REQUIRE_EQUAL(change.removed.size(), 1u);
  CAF_CHECK_EQUAL(change.removed[0], "acme");
  CAF_CHECK(!store.reload().changed);
  CAF_CHECK(!store.authenticate(*rotated));
  CAF_CHECK(!store.authenticate(""));
}

CAF_TEST(settle keys are their own kind of key) {
  test::temp_dir dir{"z402-keyring"};
  auto provider_key = auth::add_provider(dir.path, "acme", "uregtest1acme", 1);
  auto settle_key = auth::create_settle_key(dir.path, 2);
  CAF_REQUIRE(provider_key && settle_key);
  CAF_CHECK_EQUAL(settle_key->substr(0, 7), "z402sk_");
  auth::key_store store{auth::keyring_path(dir.path), {}};
  store.reload();
  CAF_CHECK(store.is_settle_key(*settle_key));
  CAF_CHECK(!store.is_settle_key(*provider_key));
  CAF_CHECK(!store.authenticate(*settle_key));
  // Provider edits keep the settle keys.
  CAF_CHECK(auth::rotate_provider_key(dir.path, "acme"));
  store.reload();
  CAF_CHECK(store.is_settle_key(*settle_key));
  auto text = config::read_file(auth::keyring_path(dir.path));
  CAF_REQUIRE(text);
  CAF_CHECK(text->find(*settle_key) == std::string::npos);
}

CAF_TEST(a malformed keyring keeps the previous keys) {
  test::temp_dir dir{"z402-keyring"};
  auto key = auth::add_provider(dir.path, "acme", "uregtest1acme", 1);
  CAF_REQUIRE(key);
  auth::key_store store{auth::keyring_path(dir.path), {}};
  store.reload();
  CAF_CHECK(config::write_file_atomically(auth::keyring_path(dir.path), "{not json").has_value());
  store.reload();
  CAF_CHECK(store.authenticate(*key));
  CAF_CHECK(failure(auth::load_keyring(auth::keyring_path(dir.path))) == errc::corrupt);
  // Well-formed JSON of the wrong shape is as malformed, field by field, and edits refuse it.
  for (auto text : {R"({"providers":{}})", R"({"providers":[{"name":"a","payTo":"p","keySha256":"h"}]})",
                    R"({"providers":[{"name":1,"payTo":"p","keySha256":"h","createdMs":1}]})", R"({"providers":[7]})",
                    R"({"providers":[],"settleKeys":[{"keySha256":"h","createdMs":"soon"}]})", "[]"}) {
    CAF_CHECK(config::write_file_atomically(auth::keyring_path(dir.path), text).has_value());
    CAF_CHECK(failure(auth::load_keyring(auth::keyring_path(dir.path))) == errc::corrupt);
    CAF_CHECK(failure(auth::add_provider(dir.path, "other", "uregtest1other", 1)) == errc::corrupt);
    CAF_CHECK(*config::read_file(auth::keyring_path(dir.path)) == text);
  }
}

CAF_TEST(a key store made from the file as read at start needs no second read) {
  test::temp_dir dir{"z402-keyring"};
  auto key = auth::add_provider(dir.path, "acme", "uregtest1acme", 1);
  CAF_REQUIRE(key);
  auto first = auth::read_keyring_file(auth::keyring_path(dir.path));
  CAF_REQUIRE(first);
  auth::key_store store{auth::keyring_path(dir.path), {}, std::move(*first)};
  CAF_CHECK(store.authenticate(*key));
  CAF_CHECK(!store.reload().changed);  // the stamp came with the keys: the same file is not read again
  CAF_REQUIRE(auth::remove_provider(dir.path, "acme"));
  CAF_CHECK(store.reload().changed);
  CAF_CHECK(!store.authenticate(*key));
  // A malformed file is refused, not read as no keys.
  CAF_CHECK(config::write_file_atomically(auth::keyring_path(dir.path), "{not json").has_value());
  CAF_CHECK(failure(auth::read_keyring_file(auth::keyring_path(dir.path))) == errc::corrupt);
}

CAF_TEST(constant time comparison compares) {
  CAF_CHECK(crypto::constant_time_equal("abc", "abc"));
  CAF_CHECK(!crypto::constant_time_equal("abc", "abd"));
  CAF_CHECK(!crypto::constant_time_equal("abc", "abcd"));
  CAF_CHECK_EQUAL(crypto::sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}
