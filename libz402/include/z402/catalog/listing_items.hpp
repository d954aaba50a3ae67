#pragma once
// The catalog's items in listing order, as a snapshot holds them: in chunks of up to 256 that
// versions share. A publication copies one pointer per chunk, and a change copies only the
// chunks it touches (at 65,536 items, copying the whole list of item pointers at each
// publication, and releasing the old one, was 29 % of the server's samples under changed
// declarations). Every chunk is full but the last, so finding a position is a division.
#include "z402/catalog/item.hpp"

#include <cstddef>
#include <compare>
#include <iterator>
#include <memory>
#include <stdexcept>
#include <vector>

namespace z402::catalog {

class listing_items {
  using chunk = std::vector<item_ptr>;

 public:
  static constexpr std::size_t chunk_size = 256;

  /// Random access, read only: the items of a published version never change.
  class iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = item_ptr;
    using difference_type = std::ptrdiff_t;
    using pointer = const item_ptr*;
    using reference = const item_ptr&;

    iterator() = default;
    iterator(const listing_items* items, std::size_t at) : items_(items), at_(at) {}
    reference operator*() const { return (*items_)[at_]; }
    pointer operator->() const { return &(*items_)[at_]; }
    reference operator[](difference_type n) const { return (*items_)[at_ + n]; }
    iterator& operator++() { ++at_; return *this; }
    iterator operator++(int) { auto was = *this; ++at_; return was; }
    iterator& operator--() { --at_; return *this; }
    iterator operator--(int) { auto was = *this; --at_; return was; }
    iterator& operator+=(difference_type n) { at_ += n; return *this; }
    iterator& operator-=(difference_type n) { at_ -= n; return *this; }
    friend iterator operator+(iterator i, difference_type n) { return i += n; }
    friend iterator operator+(difference_type n, iterator i) { return i += n; }
    friend iterator operator-(iterator i, difference_type n) { return i -= n; }
    friend difference_type operator-(const iterator& a, const iterator& b) {
      return static_cast<difference_type>(a.at_) - static_cast<difference_type>(b.at_);
    }
    friend bool operator==(const iterator& a, const iterator& b) { return a.at_ == b.at_; }
    friend auto operator<=>(const iterator& a, const iterator& b) { return a.at_ <=> b.at_; }
    /// The position in the list.
    std::size_t position() const { return at_; }

   private:
    const listing_items* items_ = nullptr;
    std::size_t at_ = 0;
  };

  listing_items() = default;
  listing_items(std::initializer_list<item_ptr> items) : listing_items(std::vector<item_ptr>(items)) {}
  explicit listing_items(const std::vector<item_ptr>& items);

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const item_ptr& operator[](std::size_t i) const { return (*chunks_[i / chunk_size])[i % chunk_size]; }
  const item_ptr& front() const { return (*this)[0]; }
  const item_ptr& back() const { return (*this)[size_ - 1]; }
  /// The item at `i`; std::out_of_range past the end.
  const item_ptr& at(std::size_t i) const {
    if (i >= size_) throw std::out_of_range("listing_items::at");
    return (*this)[i];
  }
  iterator begin() const { return {this, 0}; }
  iterator end() const { return {this, size_}; }

  void push_back(item_ptr item);
  /// Replaces the item at `at`.
  void set(iterator at, item_ptr item);
  /// Puts `item` before `at`; the items from `at` on move one place (their chunks are copied).
  void insert(iterator at, item_ptr item);
  /// Removes the item at `at`; the items after it move one place back.
  void erase(iterator at);

 private:
  /// Chunk `c`, copied first if another version holds it too.
  chunk& own(std::size_t c);
  /// Keeps the first `n` items.
  void truncate(std::size_t n);

  std::vector<std::shared_ptr<chunk>> chunks_;
  std::size_t size_ = 0;
};

}  // namespace z402::catalog
