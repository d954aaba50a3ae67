#include "z402/config/bazaar_config.hpp"

#include "z402/config/atomic_file.hpp"
#include "z402/config/listen_address.hpp"
#include "z402/wire/json.hpp"

#include <boost/json.hpp>

#include <set>

namespace z402::config {
namespace {

expected<std::uint64_t> positive(const boost::json::value& v, const std::string& name, std::uint64_t max) {
  if (v.is_int64() && v.as_int64() > 0 && static_cast<std::uint64_t>(v.as_int64()) <= max)
    return static_cast<std::uint64_t>(v.as_int64());
  return refused(name, name + " must be an integer from 1 to " + std::to_string(max));
}

}  // namespace

expected<void> set_listen(bazaar_config& cfg, std::string_view host_port) {
  auto address = parse_listen_address(host_port, true);
  if (!address) return address.error();
  cfg.listen = std::move(*address);
  return {};
}

expected<void> apply_config_file(bazaar_config& cfg, const std::filesystem::path& file) {
  auto text = read_file(file);
  if (!text)
    return error{text.error().code, "", text.error().code == errc::not_found ? "cannot read " + file.string() : text.error().reason};
  auto doc = wire::parse_strict(*text, 16);
  if (!doc || !doc->is_object()) return refused("", file.string() + ": " + (doc ? "must hold a JSON object" : doc.error().reason));
  static const std::set<std::string_view> known{"listen", "terms", "allowHttpResources", "ioThreads",
                                                "actorThreads", "accessLog", "metrics", "tls", "cluster", "connections",
                                                "limits"};
  for (auto& kv : doc->as_object()) {
    auto name = std::string{kv.key()};
    auto& v = kv.value();
    if (!known.count(name)) return refused(name, file.string() + ": unknown key " + name);
    if (name == "listen") {
      if (!v.is_string()) return refused(name, "listen must be a string HOST:PORT");
      if (auto set = set_listen(cfg, v.as_string()); !set) return set;
    } else if (name == "terms") {
      auto terms = terms_from_json(v, cfg.terms);
      if (!terms) return terms.error();
      cfg.terms = std::move(*terms);
    } else if (name == "allowHttpResources" || name == "accessLog" || name == "metrics") {
      if (!v.is_bool()) return refused(name, name + " must be true or false");
      (name == "accessLog" ? cfg.access_log : name == "metrics" ? cfg.metrics : cfg.allow_http_resources) = v.as_bool();
    } else if (name == "tls") {
      if (!v.is_object()) return refused(name, "tls must be an object {\"certificate\": FILE, \"key\": FILE}");
      for (auto& t : v.as_object()) {
        auto tname = "tls." + std::string{t.key()};
        if (t.key() != "certificate" && t.key() != "key") return refused(tname, "unknown key " + tname);
        if (!t.value().is_string() || t.value().as_string().empty()) return refused(tname, tname + " must be a file name");
        auto path = file.parent_path() / std::string{t.value().as_string()};
        (t.key() == "key" ? cfg.tls_key : cfg.tls_certificate) = path;
      }
      if (cfg.tls_key.empty() != cfg.tls_certificate.empty()) return refused(name, "tls needs both certificate and key");
    } else if (name == "cluster") {
      if (!v.is_object()) return refused(name, "cluster must be an object {\"ca\": FILE, \"cert\": FILE, \"key\": FILE}");
      for (auto& c : v.as_object()) {
        auto cname = "cluster." + std::string{c.key()};
        auto* path = c.key() == "ca" ? &cfg.cluster.ca : c.key() == "cert" ? &cfg.cluster.cert : c.key() == "key" ? &cfg.cluster.key : nullptr;
        if (!path) return refused(cname, "unknown key " + cname);
        if (!c.value().is_string() || c.value().as_string().empty()) return refused(cname, cname + " must be a file name");
        *path = file.parent_path() / std::string{c.value().as_string()};
      }
      // Half a configuration would fall back to trusting the system's CAs (CAF's OpenSSL module
      // does when no CA is given) or to no client certificate: all three, or the field missing.
      for (auto [field, path] : {std::pair{"cluster.ca", &cfg.cluster.ca}, {"cluster.cert", &cfg.cluster.cert}, {"cluster.key", &cfg.cluster.key}})
        if (path->empty()) return refused(field, std::string{"cluster needs ca, cert and key; "} + field + " is missing");
    } else if (name == "ioThreads" || name == "actorThreads") {
      auto n = positive(v, name, 64);
      if (!n) return n.error();
      (name == "ioThreads" ? cfg.io_threads : cfg.actor_threads) = *n;
    } else if (name == "connections") {
      if (!v.is_object()) return refused(name, "connections must be an object");
      for (auto& c : v.as_object()) {
        auto cname = "connections." + std::string{c.key()};
        if (c.key() == "max") {
          auto n = positive(c.value(), cname, 1u << 20);
          if (!n) return n.error();
          cfg.max_connections = *n;
        } else if (c.key() == "declarationBytesInFlight") {
          auto n = positive(c.value(), cname, std::uint64_t{1} << 34);
          if (!n) return n.error();
          cfg.declaration_bytes_in_flight = *n;
        } else if (c.key() == "idleTimeoutSeconds" || c.key() == "requestTimeoutSeconds") {
          auto n = positive(c.value(), cname, 3600);
          if (!n) return n.error();
          (c.key() == "idleTimeoutSeconds" ? cfg.idle_timeout : cfg.request_timeout) = std::chrono::seconds{*n};
        } else {
          return refused(cname, "unknown key " + cname);
        }
      }
    } else {  // limits
      if (!v.is_object()) return refused(name, "limits must be an object");
      for (auto& lim : v.as_object()) {
        auto lname = "limits." + std::string{lim.key()};
        // At most 2^27 remembered payments: 4 GiB of memory at about 32 bytes each.
        auto n = positive(lim.value(), lname, lim.key() == "maxRememberedPayments" ? std::uint64_t{1} << 27 : std::uint64_t{1} << 40);
        if (!n) return n.error();
        if (lim.key() == "maxItemsPerProvider") cfg.limits.max_items_per_provider = *n;
        else if (lim.key() == "maxItems") cfg.limits.max_items = *n;
        else if (lim.key() == "maxCatalogBytes") cfg.limits.max_catalog_bytes = *n;
        else if (lim.key() == "maxPaymentItemsPerProvider") cfg.limits.max_payment_items_per_provider = *n;
        else if (lim.key() == "retentionSeconds") cfg.limits.retention = std::chrono::seconds{*n};
        else if (lim.key() == "maxRememberedPayments") cfg.limits.max_remembered_payments = *n;
        else return refused(lname, "unknown key " + lname);
      }
    }
  }
  return {};
}

}  // namespace z402::config
