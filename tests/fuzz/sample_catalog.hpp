#pragma once
// A small catalog for the targets that read one: a few items of every shape a query can select
// (two providers, GET and POST, two assets, MCP), built like the unit tests' rows.
#include "fixtures.hpp"

#include "z402/catalog/item.hpp"
#include "z402/catalog/snapshot.hpp"

#include <vector>

namespace z402::fuzz {

inline std::vector<catalog::item_record> sample_records() {
  const std::vector<test::listing> rows = {
      {"Current weather", "https://wx.example.com/v1/current", "Current weather for a city.", {"weather"}, "call", {"city"}},
      {"Weather forecast", "https://wx.example.com/v1/forecast", "Daily forecast for 7 days.", {"weather", "forecast"}, "call", {"city", "days"}},
      {"URL to markdown", "https://markdown.example.com/v1/markdown", "A web page as markdown.", {"web", "markdown"}, "page", {"url"}},
      {"Text translation", "https://lingo.example.com/translate", "Translates text.", {"translation"}, "char", {"text"}, "POST"},
      {"Image OCR", "https://ocr.example.com/v2/image", "Text from images.", {"ocr"}, "image", {"imageUrl"}, "POST"},
      {"Web search", "https://find.example.com/search", "Searches the web.", {"search", "web"}, "query", {"q"}},
  };
  std::vector<catalog::item_record> records;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    catalog::item_record r;
    r.provider = i % 2 ? "beta" : "alpha";
    r.content = catalog::make_content(test::fields_of(rows[i]), rows[i].method);
    r.identity = {"http", rows[i].url, rows[i].method};
    r.seq = i + 1;
    r.last_seen_ms = 1'700'000'000'000;
    r.last_updated_ms = 1'700'000'000'000;
    records.push_back(std::move(r));
  }
  return records;
}

inline catalog::snapshot_ptr sample_snapshot() {
  auto s = std::make_shared<catalog::snapshot>();
  for (auto& r : sample_records()) {
    s->bytes += r.content->json.size();
    s->items.push_back(catalog::make_item(std::move(r), 0));
  }
  s->version = 1;
  return s;
}

}  // namespace z402::fuzz
