#pragma once
// gzip (the wrapper of RFC 1952 around deflate, zlib level 1: JSON compresses well even at the
// fastest level), for the catalog pages the routes compress and the signed catalog's bytes.
#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace z402::compression {

/// gzip of `parts`, one after the other (`total` bytes in all), streamed through zlib without
/// joining them first.
std::string gzip(std::span<const std::string_view> parts, std::size_t total);

/// gzip of `body`.
std::string gzip(std::string_view body);

}  // namespace z402::compression
