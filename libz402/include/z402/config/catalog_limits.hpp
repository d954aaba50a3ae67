#pragma once
// Every bound of the catalog in one place (docs/contract.md §2, §3, §5). Configurable; these are the
// defaults.
#include <chrono>
#include <cstddef>

namespace z402::config {

struct catalog_limits {
  std::size_t max_items_per_provider = 128;
  std::size_t max_items = 4096;
  std::size_t max_catalog_bytes = 16u << 20;        // serialised items
  std::size_t max_payment_items_per_provider = 8;   // listed from payments alone
  std::chrono::milliseconds retention = std::chrono::hours{24 * 7};
  /// A payment reported again within this long is not counted again, for at most
  /// this many payments, the oldest forgotten first: about 32 bytes each in memory, 24 on disk.
  std::chrono::milliseconds payment_memory = std::chrono::hours{24};
  std::size_t max_remembered_payments = 1u << 20;
};

}  // namespace z402::config
