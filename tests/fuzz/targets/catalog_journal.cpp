// The catalog journal as the server applies it at start, over a catalog file of two items: any
// bytes (a torn append, a disk error, an edit by hand) apply, are left unread, or move the
// journal aside, and the file's items load; never a crash, never an item twice.
#include "target.hpp"

#include "z402/catalog/catalog_file.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>

Z402_FUZZ_TARGET(catalog_journal) {
  using namespace z402;
  static const fuzz::scratch_dir dir{"journal"};
  auto file = dir / "catalog.json";
  auto journal = catalog::journal_path(file);
  {
    // The file make-seeds writes the journal seeds against: two items, seq 1 and 2, at (7, 5).
    std::ofstream out{file, std::ios::binary | std::ios::trunc};
    for (auto seq : {1, 2})
      out << (seq == 1 ? R"({"format":"z402-catalog","version":1,"epoch":"7","catalogVersion":5,"day":20422,"items":[)" "\n" : ",\n")
          << R"({"provider":"alpha","type":"http","resource":"https://a.example.com/)" << seq
          << R"(","selector":"GET","declared":true,"seq":)" << seq
          << R"(,"lastSeen":1,"lastUpdated":1,"paidCalls":0,"paidDay":20422,"fields":{"resource":"https://a.example.com/)" << seq
          << R"(","type":"http","x402Version":2,"accepts":[]}})";
    out << "\n]}";
    std::ofstream{journal, std::ios::binary | std::ios::trunc}.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  auto loaded = catalog::load_catalog(file, 1);
  fuzz::require(loaded.state == catalog::catalog_load::status::loaded, "the file loads whatever its journal holds");
  if (!loaded.journal_problem.empty()) {
    fuzz::require(loaded.records.size() == 2 && loaded.position.version == 5, "a corrupt journal leaves the file's items");
    fuzz::require(!std::filesystem::exists(journal), "a corrupt journal is moved aside");
    std::filesystem::remove(loaded.journal_moved_aside);
    return 0;
  }
  fuzz::require(std::is_sorted(loaded.records.begin(), loaded.records.end(), [](auto& a, auto& b) { return a.seq < b.seq; }),
                "the items stay in listing order");
  fuzz::require(std::adjacent_find(loaded.records.begin(), loaded.records.end(), [](auto& a, auto& b) { return a.seq == b.seq; }) ==
                    loaded.records.end(),
                "no item twice");
  for (auto& r : loaded.records) fuzz::require(r.content && !r.content->json.empty(), "every loaded item has content");
  return 0;
}
