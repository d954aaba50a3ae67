// The catalog file as the server loads it at start: any bytes (a torn write, a disk error, an
// edit by hand) load or are moved aside as corrupt, never crash the start.
#include "target.hpp"

#include "z402/catalog/catalog_file.hpp"

#include <filesystem>
#include <fstream>

Z402_FUZZ_TARGET(catalog_file) {
  using namespace z402;
  static const fuzz::scratch_dir dir{"catalog"};
  auto file = dir / "catalog.json";
  {
    std::ofstream out{file, std::ios::binary | std::ios::trunc};
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  auto loaded = catalog::load_catalog(file, 1);
  if (loaded.state == catalog::catalog_load::status::corrupt) {
    fuzz::require(!loaded.problem.empty() && loaded.records.empty(), "a corrupt file says why and yields nothing");
    fuzz::require(!std::filesystem::exists(file), "a corrupt file is moved aside");
    std::filesystem::remove(loaded.moved_aside);
    return 0;
  }
  fuzz::require(loaded.state == catalog::catalog_load::status::loaded, "a present file loads or is corrupt");
  for (auto& r : loaded.records) fuzz::require(r.content && !r.content->json.empty(), "every loaded item has content");
  return 0;
}
