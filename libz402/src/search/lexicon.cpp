#include "search/lexicon.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include <sys/mman.h>
#include <unistd.h>

// The bytes of the lexicon, put into the library by lexicon_data.cpp.
extern "C" const unsigned char z402_lexicon_bytes[];
extern "C" const unsigned char z402_lexicon_end[];

namespace z402::search {
namespace fmt = lexicon_format;
namespace {

/// Gives the whole pages of `bytes` back to the kernel. They are the library's own read-only
/// data, clean and backed by its file, so the next read of one maps it again from the page cache:
/// MADV_DONTNEED on them loses nothing. An advice: where it fails, the pages merely stay.
void give_back_pages(const unsigned char* bytes, std::size_t size) {
  auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  auto first = (reinterpret_cast<std::uintptr_t>(bytes) + page - 1) & ~(page - 1);
  auto last = (reinterpret_cast<std::uintptr_t>(bytes) + size) & ~(page - 1);
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

}  // namespace

const lexicon& lexicon::instance() {
  static const lexicon built_in = [] {
    auto read = lexicon::read(z402_lexicon_bytes, static_cast<std::size_t>(z402_lexicon_end - z402_lexicon_bytes));
    if (!read) {
      std::fprintf(stderr, "z402: the search lexicon compiled into this library is unusable: %s\n", read.error().reason.c_str());
      std::terminate();
    }
    // The check read every page of it: 3.2 MB made resident by a server's first declaration,
    // for good. Lookups need only the pages on their way (the keys and relations of the
    // catalog's own words and of the queries asked), so the check's pages go back.
    give_back_pages(z402_lexicon_bytes, read->bytes());
    return *read;
  }();
  return built_in;
}

expected<lexicon> lexicon::read(const unsigned char* bytes, std::size_t size) {
  auto refused = [](const char* why) { return error{errc::corrupt, "lexicon", why}; };
  fmt::header h;
  if (size < sizeof h) return refused("shorter than its header");
  std::memcpy(&h, bytes, sizeof h);
  if (std::memcmp(h.magic, fmt::magic, sizeof fmt::magic) != 0) return refused("not a lexicon");
  if (h.version != fmt::version) return refused("a format this library does not read");
  if (h.bytes != size) return refused("its size is not the one it was written with");
  lexicon lex{bytes, size, h};
  if (auto* why = lex.fault()) return refused(why);
  lex.sources_ = {reinterpret_cast<const char*>(bytes + h.sources.offset), h.sources.count};
  return lex;
}

lexicon::lexicon(const unsigned char* bytes, std::size_t size, const fmt::header& h) : base_(bytes), bytes_(size), header_(h) {}

const char* lexicon::fault() const {
  // Every span inside the file, each table's starts one more than its keys and ending at its
  // entries' count, every term reference inside the pool and every term id a term.
  auto inside = [&](fmt::span s, std::size_t element) {
    return s.offset % 4 == 0 && std::size_t{s.offset} + std::size_t{s.count} * element <= bytes_;
  };
  bool ok = inside(header_.pool, 1) && inside(header_.terms, 4) && inside(header_.sources, 1);
  for (auto& t : header_.tables)
    ok = ok && inside(t.keys, 4) && inside(t.starts, 4) && inside(t.entries, 4) && t.starts.count == t.keys.count + 1 &&
         words(t.starts)[t.keys.count] == t.entries.count;
  for (auto& s : header_.stopwords) ok = ok && inside(s, 4);
  if (!ok) return "a table lies outside it";
  auto* refs = words(header_.terms);
  for (std::uint32_t i = 0; i < header_.terms.count && ok; ++i) ok = (refs[i] >> 8) + (refs[i] & 0xff) <= header_.pool.count;
  auto is_term = [&](std::uint32_t id) { return id < header_.terms.count; };
  for (auto& t : header_.tables) {
    auto* keys = words(t.keys);
    auto* starts = words(t.starts);
    auto* entries = words(t.entries);
    for (std::uint32_t i = 0; i < t.keys.count && ok; ++i) ok = is_term(keys[i]) && starts[i] <= starts[i + 1];
    for (std::uint32_t i = 0; i < t.entries.count && ok; ++i) ok = is_term(entries[i] >> 10);
  }
  for (auto& s : header_.stopwords)
    for (std::uint32_t i = 0; i < s.count && ok; ++i) ok = is_term(words(s)[i]);
  return ok ? nullptr : "a term lies outside it";
}

std::string_view lexicon::term(std::uint32_t id) const {
  auto ref = words(header_.terms)[id];
  return {reinterpret_cast<const char*>(base_ + header_.pool.offset + (ref >> 8)), ref & 0xff};
}

std::size_t lexicon::find(fmt::table table, std::string_view key) const {
  auto& t = header_.tables[table];
  auto* keys = words(t.keys);
  auto* end = keys + t.keys.count;
  // Keys are sorted by their bytes, as std::string_view compares them.
  auto* at = std::lower_bound(keys, end, key, [&](std::uint32_t id, std::string_view k) { return term(id) < k; });
  return at != end && term(*at) == key ? static_cast<std::size_t>(at - keys) : npos;
}

void lexicon::lookup(fmt::table table, std::string_view key, std::vector<related_term>& out) const {
  auto k = find(table, key);
  if (k == npos) return;
  auto& t = header_.tables[table];
  auto* starts = words(t.starts);
  auto* entries = words(t.entries);
  for (auto e = starts[k]; e < starts[k + 1]; ++e)
    out.push_back({term(entries[e] >> 10), static_cast<float>(entries[e] & 0xff) / 255.0f, static_cast<relation>((entries[e] >> 8) & 3)});
}

void lexicon::translations(language lang, std::string_view stem, std::vector<related_term>& out) const {
  switch (lang) {
    case language::spanish: return lookup(fmt::spanish_english, stem, out);
    case language::portuguese: return lookup(fmt::portuguese_english, stem, out);
    case language::french: return lookup(fmt::french_english, stem, out);
    case language::english: return;
  }
}

bool lexicon::is_stopword(std::string_view word, language lang) const {
  auto s = header_.stopwords[static_cast<std::size_t>(lang)];
  auto* list = words(s);
  return std::binary_search(list, list + s.count, word,
                            [&](auto a, auto b) {
                              if constexpr (std::is_same_v<decltype(a), std::uint32_t>) return term(a) < b;
                              else return a < term(b);
                            });
}

}  // namespace z402::search
