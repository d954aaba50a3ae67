#include "z402/config/rail_terms.hpp"

#include "z402/core/crypto.hpp"

#include <boost/json/serialize.hpp>

namespace z402::config {

std::string derive_terms_version(const rail_terms& terms) {
  boost::json::object extra = terms.extra;
  extra.erase("termsVersion");
  boost::json::object basis{{"scheme", terms.scheme}, {"network", terms.network}, {"asset", terms.asset}};
  // Objects serialise in insertion order: sort the extra terms so the version does not depend on it.
  std::vector<std::string> keys;
  for (auto& kv : extra) keys.emplace_back(kv.key());
  std::sort(keys.begin(), keys.end());
  boost::json::object sorted;
  for (auto& k : keys) sorted[k] = extra[k];
  basis["extra"] = std::move(sorted);
  return crypto::sha256_hex(boost::json::serialize(basis)).substr(0, 16);
}

rail_terms default_rail_terms() {
  rail_terms t{"prepaid-voucher", "zcash:regtest", "ZEC",
               {{"windowZat", "100000"},
                {"creditRatioBps", 2500},
                {"creditCapZat", "200000"},
                {"zeroConfMinExpiryBlocks", 20}}};
  t.extra["termsVersion"] = derive_terms_version(t);
  return t;
}

boost::json::object to_json(const rail_terms& t) {
  return {{"scheme", t.scheme}, {"network", t.network}, {"asset", t.asset}, {"extra", t.extra}};
}

boost::json::object accepts_entry(const rail_terms& t, std::string_view pay_to, std::string_view amount,
                                  std::int64_t max_timeout_seconds) {
  return {{"scheme", t.scheme}, {"network", t.network},   {"amount", amount},
          {"asset", t.asset},   {"payTo", pay_to},         {"maxTimeoutSeconds", max_timeout_seconds},
          {"extra", t.extra}};
}

expected<rail_terms> terms_from_json(const boost::json::value& v, rail_terms base) {
  auto* obj = v.if_object();
  if (!obj) return refused("terms", "terms must be an object");
  for (auto [name, target] : {std::pair{"scheme", &base.scheme}, std::pair{"network", &base.network},
                              std::pair{"asset", &base.asset}}) {
    if (auto* f = obj->if_contains(name)) {
      if (!f->is_string() || f->as_string().empty())
        return refused(std::string{"terms."} + name, std::string{"terms."} + name + " must be a non-empty string");
      *target = f->as_string().c_str();
    }
  }
  if (auto* f = obj->if_contains("extra")) {
    if (!f->is_object()) return refused("terms.extra", "terms.extra must be an object");
    base.extra = f->as_object();
  }
  if (!base.extra.contains("termsVersion")) base.extra["termsVersion"] = derive_terms_version(base);
  return base;
}

}  // namespace z402::config
