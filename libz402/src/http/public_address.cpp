#include "http/public_address.hpp"

#include <array>
#include <cstdint>

namespace z402::http {
namespace {

struct v4_block {
  std::uint32_t base;
  int bits;
};

// RFC 6890's special-purpose IPv4 registry, and multicast and 240/4 beyond it.
constexpr std::array<v4_block, 15> non_public_v4{{
    {0x00000000, 8},   // "this network"
    {0x0A000000, 8},   // private
    {0x64400000, 10},  // shared address space (carrier-grade NAT)
    {0x7F000000, 8},   // loopback
    {0xA9FE0000, 16},  // link-local
    {0xAC100000, 12},  // private
    {0xC0000000, 24},  // IETF protocol assignments
    {0xC0000200, 24},  // documentation (TEST-NET-1)
    {0xC0A80000, 16},  // private
    {0xC6120000, 15},  // benchmarking
    {0xC6336400, 24},  // documentation (TEST-NET-2)
    {0xCB007100, 24},  // documentation (TEST-NET-3)
    {0xE0000000, 4},   // multicast
    {0xF0000000, 4},   // reserved, and the broadcast address
    {0xC0586300, 24},  // 6to4 relay anycast (deprecated)
}};

bool is_public_v4(const boost::asio::ip::address_v4& a) {
  auto value = a.to_uint();
  for (auto& block : non_public_v4) {
    auto mask = block.bits == 0 ? 0u : ~std::uint32_t{0} << (32 - block.bits);
    if ((value & mask) == block.base) return false;
  }
  return true;
}

bool is_public_v6(const boost::asio::ip::address_v6& a) {
  if (a.is_unspecified() || a.is_loopback() || a.is_link_local() || a.is_site_local() || a.is_multicast()) return false;
  if (a.is_v4_mapped()) return is_public_v4(boost::asio::ip::make_address_v4(boost::asio::ip::v4_mapped, a));
  auto bytes = a.to_bytes();
  if ((bytes[0] & 0xFE) == 0xFC) return false;                         // unique local fc00::/7
  if (bytes[0] == 0x20 && bytes[1] == 0x01 && bytes[2] == 0x0D && bytes[3] == 0xB8) return false;  // documentation
  if (bytes[0] == 0x00 && bytes[1] == 0x64 && bytes[2] == 0xFF && bytes[3] == 0x9B) {               // NAT64 64:ff9b::/96
    return is_public_v4(boost::asio::ip::address_v4{{bytes[12], bytes[13], bytes[14], bytes[15]}});
  }
  if (bytes[0] == 0x20 && bytes[1] == 0x02)  // 6to4: the IPv4 address in bytes 2-5
    return is_public_v4(boost::asio::ip::address_v4{{bytes[2], bytes[3], bytes[4], bytes[5]}});
  bool v4_compatible = true;  // ::a.b.c.d (deprecated)
  for (int i = 0; i < 12; ++i) v4_compatible = v4_compatible && bytes[i] == 0;
  return !v4_compatible;
}

}  // namespace

bool is_public_address(const boost::asio::ip::address& address) {
  return address.is_v4() ? is_public_v4(address.to_v4()) : is_public_v6(address.to_v6());
}

}  // namespace z402::http
