#include "z402/catalog/serialization.hpp"

#include "z402/catalog/actors.hpp"

namespace z402 {

caf::error make_error(errc code) { return caf::error{static_cast<std::uint8_t>(code), caf::atom("z402")}; }

caf::error make_error(const error& e) {
  return caf::error{static_cast<std::uint8_t>(e.code), caf::atom("z402"), caf::make_message(e.field, e.reason)};
}

error error_of(const caf::error& e) {
  if (e.category() != caf::atom("z402")) return {errc::unavailable, "", "the catalog did not answer: " + caf::to_string(e)};
  auto code = static_cast<errc>(e.code());
  if (auto& context = e.context().content(); context.match_elements<std::string, std::string>())
    return {code, context.get_as<std::string>(0), context.get_as<std::string>(1)};
  return {code, "", std::string{to_string(code)}};
}

}  // namespace z402

namespace z402::catalog {

void register_types(caf::actor_system_config& cfg) {
  // Each also registers std::vector<T> (a batch of settlements or outcomes is one of those).
  cfg.add_message_type<item_change>("z402::item_change");
  cfg.add_message_type<catalog_copy>("z402::catalog_copy");
  cfg.add_message_type<catalog_delta>("z402::catalog_delta");
  cfg.add_message_type<replica_feed_actor>("z402::replica_feed_actor");  // a follower subscribes with its handle
  cfg.add_message_type<declare_command>("z402::declare_command");
  cfg.add_message_type<delist_command>("z402::delist_command");
  cfg.add_message_type<write_outcome>("z402::write_outcome");
  cfg.add_message_type<rules::settlement>("z402::settlement");
  cfg.add_message_type<settle_outcome>("z402::settle_outcome");
  cfg.add_error_category(caf::atom("z402"), [](std::uint8_t code, caf::atom_value, const caf::message&) {
    return "z402::" + std::string{to_string(static_cast<errc>(code))};
  });
}

}  // namespace z402::catalog
