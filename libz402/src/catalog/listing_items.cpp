#include "z402/catalog/listing_items.hpp"

namespace z402::catalog {

listing_items::listing_items(const std::vector<item_ptr>& items) {
  for (auto& it : items) push_back(it);
}

listing_items::chunk& listing_items::own(std::size_t c) {
  // Only the list that holds a chunk can lend it to another: a count of one is this list alone.
  if (chunks_[c].use_count() > 1) chunks_[c] = std::make_shared<chunk>(*chunks_[c]);
  return *chunks_[c];
}

void listing_items::push_back(item_ptr item) {
  if (size_ % chunk_size == 0) {
    chunks_.push_back(std::make_shared<chunk>());
    chunks_.back()->reserve(chunk_size);
  }
  own(chunks_.size() - 1).push_back(std::move(item));
  ++size_;
}

void listing_items::set(iterator at, item_ptr item) {
  own(at.position() / chunk_size)[at.position() % chunk_size] = std::move(item);
}

void listing_items::truncate(std::size_t n) {
  chunks_.resize((n + chunk_size - 1) / chunk_size);
  if (n % chunk_size) own(chunks_.size() - 1).resize(n % chunk_size);
  size_ = n;
}

void listing_items::insert(iterator at, item_ptr item) {
  std::vector<item_ptr> after(at, end());
  truncate(at.position());
  push_back(std::move(item));
  for (auto& it : after) push_back(std::move(it));
}

void listing_items::erase(iterator at) {
  std::vector<item_ptr> after(at + 1, end());
  truncate(at.position());
  for (auto& it : after) push_back(std::move(it));
}

}  // namespace z402::catalog
