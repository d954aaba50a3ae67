// z402-lexicon-build: the search lexicon, made at build time from Debian's packaged data
// (docs/search.md, "The lexicon"): WordNet 3.0 (wordnet-base) for English synonyms, derivations
// and hypernyms; FreeDict's dictionaries between English and Spanish, Portuguese and French,
// both ways; Snowball's
// stopword lists (liblingua-stopwords-perl, written out by CMake). Every word is folded and
// stemmed by search/words.cpp, the code that reads listings and queries.
//
//   z402-lexicon-build WORDNET_DIR FREEDICT_DIR STOPWORDS_DIR SOURCES OUT
//
// Weights (one byte, 0..255 for 0..1) keep the relations in tiers, so a better relation always
// outweighs a worse one: synonym or translation (0.5, 0.6], derivation (0.4, 0.5], hypernym
// (0.3, 0.4]; within a tier, the sense's rank and the path's length lower it.
#include "search/lexicon_format.hpp"
#include "search/words.hpp"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace {

using namespace z402::search;
namespace fmt = lexicon_format;
using fmt::relation;

[[noreturn]] void fail(const std::string& why) {
  std::cerr << "z402-lexicon-build: " << why << "\n";
  std::exit(1);
}

std::ifstream open(const std::string& path) {
  std::ifstream in{path};
  if (!in) fail("cannot read " + path);
  return in;
}

// ---- what a word of a source becomes --------------------------------------------------------

/// The one folded word `text` is, or "" when it is several words or none.
std::string one_word(std::string_view text) {
  auto words = words_of(text);
  return words.size() == 1 ? words.front() : std::string{};
}

// ---- WordNet 3.0 (wndb(5WN)) ----------------------------------------------------------------

struct pointer {
  std::string symbol;  // @ hypernym, @i instance hypernym, + derivation, ...
  std::string target;  // pos char + offset
  unsigned source_word = 0, target_word = 0;  // 0: the whole synset
};

struct synset {
  std::vector<std::string> words;  // as WordNet writes them, '_' between the words of a collocation
  std::vector<pointer> pointers;
  int depth = -1;  // hypernym steps to a root, -1 while unknown
};

char file_pos(char pos) { return pos == 's' ? 'a' : pos; }

std::string lower(std::string w) {
  for (auto& c : w) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return w;
}

class wordnet {
 public:
  explicit wordnet(const std::string& dir) {
    for (auto [pos, name] : {std::pair{'n', "noun"}, {'v', "verb"}, {'a', "adj"}, {'r', "adv"}}) {
      read_data(dir + "/data." + name, pos);
      read_index(dir + "/index." + name, pos);
    }
    read_counts(dir + "/cntlist.rev");
    if (synsets_.size() < 100000) fail("WordNet in " + dir + " has only " + std::to_string(synsets_.size()) + " synsets");
  }

  /// Every lemma with its senses (synset keys), most frequent first, per part of speech.
  const std::map<std::string, std::vector<std::vector<std::string>>>& lemmas() const { return lemmas_; }
  /// How often `lemma` was tagged in WordNet's corpus, all its senses.
  unsigned tagged(const std::string& lemma) const {
    auto it = tagged_.find(lemma);
    return it == tagged_.end() ? 0 : it->second;
  }
  /// How often the sense of `lemma` in synset `key` was tagged in WordNet's corpus (cntlist).
  unsigned count(const std::string& lemma, const std::string& key) const {
    auto it = counts_.find(lemma + ' ' + key);
    return it == counts_.end() ? 0 : it->second;
  }
  const synset& at(const std::string& key) {
    auto it = synsets_.find(key);
    if (it == synsets_.end()) fail("WordNet points at a synset it lacks: " + key);
    return it->second;
  }
  /// Hypernym steps from `key` to a root (a synset without hypernyms).
  int depth(const std::string& key) {
    auto& s = synsets_.at(key);
    if (s.depth >= 0) return s.depth;
    s.depth = 0;  // a cycle, should WordNet have one, ends here
    int best = -1;
    for (auto& p : s.pointers)
      if (p.symbol == "@" || p.symbol == "@i") {
        auto d = depth(p.target) + 1;
        best = best < 0 ? d : std::min(best, d);
      }
    return synsets_.at(key).depth = std::max(best, 0);
  }

 private:
  void read_data(const std::string& path, char pos) {
    auto in = open(path);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == ' ') continue;  // the licence at the top
      std::istringstream f{line.substr(0, line.find(" | "))};
      std::string offset, lex_file, type, count_hex;
      f >> offset >> lex_file >> type >> count_hex;
      synset s;
      const auto key = std::string(1, pos) + offset;
      auto words = std::stoul(count_hex, nullptr, 16);
      for (unsigned long k = 0; k < words; ++k) {
        std::string w, lex_id;
        f >> w >> lex_id;
        if (auto paren = w.find('('); paren != std::string::npos) w.resize(paren);  // adjective markers: (a), (p), (ip)
        s.words.push_back(w);
        // The sense key's first part (senseidx(5WN)): lemma%ss_type:lex_filenum:lex_id.
        const char* ss_type = type == "n" ? "1" : type == "v" ? "2" : type == "a" ? "3" : type == "r" ? "4" : "5";
        char id[8];
        std::snprintf(id, sizeof id, "%02lu", std::stoul(lex_id, nullptr, 16));
        sense_keys_[lower(w) + "%" + ss_type + ":" + lex_file + ":" + id] = key;
      }
      unsigned pointers = 0;
      f >> pointers;
      for (unsigned k = 0; k < pointers; ++k) {
        pointer p;
        std::string target_offset, target_pos, source_target;
        f >> p.symbol >> target_offset >> target_pos >> source_target;
        p.target = std::string(1, file_pos(target_pos[0])) + target_offset;
        p.source_word = std::stoul(source_target.substr(0, 2), nullptr, 16);
        p.target_word = std::stoul(source_target.substr(2, 2), nullptr, 16);
        s.pointers.push_back(std::move(p));
      }
      if (!f) fail("cannot read a synset of " + path + ": " + line.substr(0, 40));
      synsets_[key] = std::move(s);
    }
  }

  void read_index(const std::string& path, char pos) {
    auto in = open(path);
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == ' ') continue;
      std::istringstream f{line};
      std::string lemma, p;
      unsigned senses = 0, pointer_kinds = 0;
      f >> lemma >> p >> senses >> pointer_kinds;
      for (unsigned k = 0; k < pointer_kinds; ++k) f >> p;
      unsigned tagged = 0;
      f >> senses >> tagged;
      std::vector<std::string> keys;
      for (unsigned k = 0; k < senses; ++k) {
        std::string offset;
        f >> offset;
        keys.push_back(std::string(1, pos) + offset);
      }
      if (!f) fail("cannot read a lemma of " + path + ": " + line.substr(0, 40));
      lemmas_[lemma].push_back(std::move(keys));
    }
  }

  // cntlist.rev: "sense_key sense_number tag_count", the sense key
  // lemma%ss_type:lex_filenum:lex_id:head_word:head_id.
  void read_counts(const std::string& path) {
    auto in = open(path);
    std::string sense_key, number;
    unsigned tagged = 0;
    while (in >> sense_key >> number >> tagged) {
      auto third = sense_key.find(':', sense_key.find(':', sense_key.find(':') + 1) + 1);
      auto it = sense_keys_.find(sense_key.substr(0, third));
      const auto lemma = sense_key.substr(0, sense_key.find('%'));
      tagged_[lemma] += tagged;
      if (it != sense_keys_.end()) counts_[lemma + ' ' + it->second] = tagged;
    }
    if (counts_.size() < 10000) fail(path + " names only " + std::to_string(counts_.size()) + " senses WordNet has");
  }

  std::unordered_map<std::string, synset> synsets_;
  std::map<std::string, std::vector<std::vector<std::string>>> lemmas_;
  std::unordered_map<std::string, std::string> sense_keys_;  // sense key's first part -> synset key
  std::unordered_map<std::string, unsigned> counts_;        // "lemma synset-key" -> times tagged
  std::unordered_map<std::string, unsigned> tagged_;        // lemma -> times tagged, every sense
};

// ---- the lexicon being made -----------------------------------------------------------------

/// A key's related terms, the best weight each.
struct relations {
  std::map<std::string, std::pair<double, relation>> terms;

  void add(const std::string& term, double weight, relation r) {
    auto& slot = terms[term];
    if (weight > slot.first) slot = {weight, r};
  }
};

constexpr std::size_t most_related = 48;  // per key: the rest weigh less than these
// A word WordNet's corpus tagged more often than this ("go" 598 times, "make" 1,613, "say"
// 2,167) has so many senses in use that its relations say more of them than of the query:
// it searches as typed only.
constexpr unsigned most_tagged = 400;
constexpr double sense_quality[] = {1.0, 0.8, 0.65, 0.5};
constexpr double step_decay = 0.8;  // each further hypernym step

double tier(relation r, double quality) {
  const double base = r == relation::synonym || r == relation::translation ? 0.5 : r == relation::derivation ? 0.4 : 0.3;
  return base + 0.1 * std::clamp(quality, 0.0, 1.0);
}

class english_builder {
 public:
  english_builder(wordnet& wn, const std::unordered_set<std::string>& stopwords) : wn_(wn), stopwords_(stopwords) {}

  std::map<std::string, relations> build() {
    std::map<std::string, relations> out;
    for (auto& [lemma, by_pos] : wn_.lemmas()) {
      auto folded = one_word(lemma);
      if (folded.empty() || lemma.find_first_of("_-.'") != std::string::npos) continue;
      if (wn_.tagged(lemma) > most_tagged) continue;
      auto key = stem(folded);
      auto& into = out[key];
      for (auto& [at, q] : senses_of(lemma, by_pos)) sense(into, key, lemma, at, q);
      if (into.terms.empty()) out.erase(key);
    }
    return out;
  }

 private:
  // The senses of `lemma` worth relating, each with its quality (0, 1]. When WordNet's corpus
  // tagged any, the tagged ones by their share of the commonest ("weather" the noun, 20 times;
  // as a verb, never); otherwise the first two of each part of speech.
  std::vector<std::pair<std::string, double>> senses_of(const std::string& lemma, const std::vector<std::vector<std::string>>& by_pos) {
    unsigned most = 0;
    for (auto& senses : by_pos)
      for (auto& at : senses) most = std::max(most, wn_.count(lemma, at));
    std::vector<std::pair<std::string, double>> out;
    for (auto& senses : by_pos)
      for (std::size_t r = 0; r < senses.size() && r < std::size(sense_quality); ++r) {
        const auto c = wn_.count(lemma, senses[r]);
        if (most > 0 && c > 0) out.emplace_back(senses[r], 0.4 + 0.6 * c / most);
        else if (most == 0 && r < 2) out.emplace_back(senses[r], sense_quality[r]);
      }
    return out;
  }

  // The `key` lemma `lemma` in synset `at`, of sense quality q.
  void sense(relations& into, const std::string& key, const std::string& lemma, const std::string& at, double q) {
    const auto& s = wn_.at(at);  // depth() changes synsets' depths, never the map
    unsigned position = 0;
    for (std::size_t w = 0; w < s.words.size(); ++w) {
      if (lower(s.words[w]) == lemma) position = static_cast<unsigned>(w + 1);
      else add(into, key, s.words[w], tier(relation::synonym, q), relation::synonym);
    }
    for (auto& p : s.pointers)
      if (p.symbol == "+" && (p.source_word == 0 || p.source_word == position)) {
        auto& t = wn_.at(p.target);
        if (p.target_word > 0 && p.target_word <= t.words.size())
          add(into, key, t.words[p.target_word - 1], tier(relation::derivation, q * 0.9), relation::derivation);
        hypernyms(into, key, p.target, q * 0.8);
      }
    hypernyms(into, key, at, q);
  }

  // Up to three hypernym steps above `from`, none into the abstract top of WordNet: each step's
  // words, and the words derived from them ("summary" gives "summarize").
  void hypernyms(relations& into, const std::string& key, const std::string& from, double q) {
    std::vector<std::string> level{from};
    for (int step = 0; step < 3 && !level.empty(); ++step, q *= step_decay) {
      std::vector<std::string> next;
      for (auto& k : level)
        for (auto& p : wn_.at(k).pointers) {
          if (p.symbol != "@" && p.symbol != "@i") continue;
          if (too_abstract(p.target)) continue;
          const auto& h = wn_.at(p.target);
          for (auto& w : h.words) add(into, key, w, tier(relation::hypernym, q), relation::hypernym);
          for (auto& d : h.pointers)
            if (d.symbol == "+" && d.target_word > 0) {
              auto& t = wn_.at(d.target);
              if (d.target_word <= t.words.size()) add(into, key, t.words[d.target_word - 1], tier(relation::hypernym, q * 0.85), relation::hypernym);
            }
          next.push_back(p.target);
        }
      level = std::move(next);
    }
  }

  // Nouns fewer than four steps below a root ("entity", "abstraction", "process", "message")
  // and verbs that are roots ("change", "move", "act") relate everything to everything.
  bool too_abstract(const std::string& key) {
    const auto d = wn_.depth(key);
    return key[0] == 'n' ? d < 4 : key[0] == 'v' ? d < 1 : false;
  }

  void add(relations& into, const std::string& key, const std::string& word, double weight, relation r) {
    if (word.find('_') != std::string::npos) return;  // collocations: their words alone say other things
    auto folded = one_word(word);
    if (folded.empty() || stopwords_.count(folded)) return;
    auto s = stem(folded);
    if (s != key) into.add(s, weight, r);
  }

  wordnet& wn_;
  const std::unordered_set<std::string>& stopwords_;
};

// A term that WordNet relates to very many words ("taxon", "genus", "act", "artifact", each
// to over a thousand) says nothing of any of them: as a query's expansion it matches listings
// for no reason. Dropped as a relation (a word typed still finds it).
constexpr std::size_t most_keys_per_term = 1000;

void drop_common_relations(std::map<std::string, relations>& table) {
  std::unordered_map<std::string, std::size_t> keys_of;
  for (auto& [key, rel] : table)
    for (auto& [term, weight] : rel.terms) ++keys_of[term];
  for (auto& [key, rel] : table)
    std::erase_if(rel.terms, [&](auto& entry) { return keys_of[entry.first] > most_keys_per_term; });
  std::erase_if(table, [](auto& entry) { return entry.second.terms.empty(); });
}

// ---- FreeDict (dictd: an index of "headword TAB offset TAB length", base64; a dictzip text) ----

std::string gunzip_file(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) fail("cannot read " + path);
  std::string out;
  char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  const bool ok = n == 0;
  gzclose(f);
  if (!ok) fail("cannot decompress " + path);
  return out;
}

std::uint64_t dictd_number(std::string_view b64) {
  static constexpr std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::uint64_t v = 0;
  for (char c : b64) {
    auto d = alphabet.find(c);
    if (d == std::string_view::npos) throw std::runtime_error("not a dictd number");
    v = v * 64 + d;
  }
  return v;
}

/// A dictionary entry's glosses: the words of each (folded) and its quality, from 1 for the
/// first sense's first gloss down.
using glosses = std::vector<std::pair<std::vector<std::string>, double>>;

/// f(folded headword, its glosses) for every entry of one FreeDict dictionary of one word.
template <class F>
void for_each_entry(const std::string& dir, const std::string& name, F&& f) {
  const auto text = gunzip_file(dir + "/" + name + ".dict.dz");
  auto in = open(dir + "/" + name + ".index");
  std::string line;
  std::size_t entries = 0;
  while (std::getline(in, line)) {
    auto t1 = line.find('\t'), t2 = line.find('\t', t1 + 1);
    if (t1 == std::string::npos || t2 == std::string::npos) fail("cannot read a line of " + name + ".index");
    const auto headword = line.substr(0, t1);
    if (headword.rfind("00-database", 0) == 0 || headword.rfind("00database", 0) == 0) continue;
    auto folded = one_word(headword);
    if (folded.empty()) continue;
    std::uint64_t offset = 0, length = 0;
    try {
      offset = dictd_number(line.substr(t1 + 1, t2 - t1 - 1));
      length = dictd_number(line.substr(t2 + 1));
    } catch (const std::exception&) {
      fail("cannot read a line of " + name + ".index");
    }
    if (offset + length > text.size()) fail(name + ".index points past its dictionary");
    // The entry: its headword line (pronunciation, part of speech), then senses, "N. " before
    // each when there are several, each sense's glosses separated by commas or semicolons.
    std::istringstream entry{text.substr(offset, length)};
    std::string sense_line;
    std::getline(entry, sense_line);
    glosses found;
    double sense_q = 1.0;
    while (std::getline(entry, sense_line)) {
      auto body = sense_line;
      auto dot = body.find(". ");
      if (dot != std::string::npos && dot <= 3 && std::all_of(body.begin(), body.begin() + dot, ::isdigit)) body = body.substr(dot + 2);
      for (auto& c : body)
        if (c == ';') c = ',';
      std::istringstream parts{body};
      std::string gloss;
      double gloss_q = sense_q;
      while (std::getline(parts, gloss, ',')) {
        auto words = words_of(gloss);
        if (!words.empty()) found.emplace_back(std::move(words), gloss_q);
        gloss_q *= 0.9;
      }
      sense_q *= 0.8;
    }
    f(folded, found);
    ++entries;
  }
  if (entries < 1000) fail(name + " has only " + std::to_string(entries) + " entries");
}

/// Stems in `lang` to English stems, from FreeDict's `lang`-English dictionary (`code`-eng:
/// headword to glosses) and its English-`lang` one (eng-`code`: glosses to headword, the
/// other way round; each has words the other lacks).
std::map<std::string, relations> read_freedict(const std::string& dir, const std::string& code, language lang,
                                               const std::unordered_set<std::string>& english_stopwords) {
  std::map<std::string, relations> out;
  auto content_of = [&](const std::vector<std::string>& words) {
    std::vector<std::string> content;
    for (auto& w : words)
      if (!english_stopwords.count(w)) content.push_back(w);
    return content;
  };
  for_each_entry(dir, "freedict-" + code + "-eng", [&](const std::string& headword, const glosses& found) {
    // Glosses of one word say what the headword is; a gloss of several ("take note", "post
    // office") only when the entry has none of one word, and less with each of its words.
    bool has_single = false;
    for (auto& g : found) has_single = has_single || content_of(g.first).size() == 1;
    auto& into = out[stem(headword, lang)];
    for (auto& [words, q] : found) {
      auto content = content_of(words);
      if (content.size() > 1 && has_single) continue;
      for (auto& w : content) into.add(stem(w), tier(relation::translation, content.size() == 1 ? q : q * 0.7), relation::translation);
    }
  });
  for_each_entry(dir, "freedict-eng-" + code, [&](const std::string& headword, const glosses& found) {
    if (english_stopwords.count(headword)) return;
    const auto english = stem(headword);
    for (auto& [words, q] : found)
      if (words.size() == 1) out[stem(words.front(), lang)].add(english, tier(relation::translation, q), relation::translation);
  });
  std::erase_if(out, [](auto& entry) { return entry.second.terms.empty(); });
  return out;
}

// ---- stopwords --------------------------------------------------------------------------------

std::unordered_set<std::string> read_stopwords(const std::string& path) {
  auto in = open(path);
  std::unordered_set<std::string> out;
  std::string line;
  while (std::getline(in, line))
    for (auto& w : words_of(line)) out.insert(w);  // "aren't": aren, t
  if (out.size() < 50) fail(path + " has only " + std::to_string(out.size()) + " stopwords");
  return out;
}

// ---- writing ----------------------------------------------------------------------------------

class writer {
 public:
  std::uint32_t term(const std::string& t) {
    if (t.empty() || t.size() > 255) fail("a term of length " + std::to_string(t.size()));
    auto [it, fresh] = ids_.emplace(t, static_cast<std::uint32_t>(refs_.size()));
    if (fresh) {
      refs_.push_back(fmt::pack_term(static_cast<std::uint32_t>(pool_.size()), static_cast<std::uint32_t>(t.size())));
      pool_ += t;
    }
    return it->second;
  }

  void table(fmt::table which, const std::map<std::string, relations>& keys) {
    auto& t = tables_[which];
    t.starts.push_back(0);
    // std::map: keys in byte order already (std::string compares as unsigned bytes do).
    for (auto& [key, rel] : keys) {
      std::vector<std::pair<std::string, std::pair<double, relation>>> best(rel.terms.begin(), rel.terms.end());
      std::stable_sort(best.begin(), best.end(), [](auto& a, auto& b) { return a.second.first > b.second.first; });
      if (best.size() > most_related) best.resize(most_related);
      t.keys.push_back(term(key));
      for (auto& [term_text, wr] : best) {
        auto weight = static_cast<std::uint32_t>(std::lround(wr.first * 255));
        t.entries.push_back(fmt::pack_entry(term(term_text), wr.second, std::min<std::uint32_t>(weight, 255)));
      }
      t.starts.push_back(static_cast<std::uint32_t>(t.entries.size()));
    }
  }

  void stopwords(std::size_t list, const std::unordered_set<std::string>& words) {
    std::set<std::string> sorted(words.begin(), words.end());
    for (auto& w : sorted) stopwords_[list].push_back(term(w));
  }

  void write(const std::string& path, const std::string& sources) {
    if (pool_.size() >= fmt::max_pool || refs_.size() >= fmt::max_terms) fail("the lexicon outgrew its format");
    std::string out(sizeof(fmt::header), '\0');
    fmt::header h{};
    std::memcpy(h.magic, fmt::magic, sizeof h.magic);
    h.version = fmt::version;
    auto put_bytes = [&](std::string_view bytes) {
      fmt::span s{static_cast<std::uint32_t>(out.size()), static_cast<std::uint32_t>(bytes.size())};
      out.append(bytes);
      out.resize((out.size() + 3) / 4 * 4, '\0');
      return s;
    };
    auto put_words = [&](const std::vector<std::uint32_t>& v) {
      fmt::span s{static_cast<std::uint32_t>(out.size()), static_cast<std::uint32_t>(v.size())};
      out.append(reinterpret_cast<const char*>(v.data()), v.size() * 4);
      return s;
    };
    h.pool = put_bytes(pool_);
    h.terms = put_words(refs_);
    for (std::size_t t = 0; t < fmt::table_count; ++t) {
      h.tables[t].keys = put_words(tables_[t].keys);
      h.tables[t].starts = put_words(tables_[t].starts);
      h.tables[t].entries = put_words(tables_[t].entries);
    }
    for (std::size_t l = 0; l < fmt::stopword_lists; ++l) h.stopwords[l] = put_words(stopwords_[l]);
    h.sources = put_bytes(sources);
    h.bytes = static_cast<std::uint32_t>(out.size());
    std::memcpy(out.data(), &h, sizeof h);
    const auto temporary = path + ".part";
    {
      std::ofstream f{temporary, std::ios::binary | std::ios::trunc};
      f.write(out.data(), static_cast<std::streamsize>(out.size()));
      if (!f) fail("cannot write " + temporary);
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0) fail("cannot write " + path);
    std::cout << "z402-lexicon-build: " << path << ": " << out.size() << " bytes, " << refs_.size() << " terms";
    for (std::size_t t = 0; t < fmt::table_count; ++t) std::cout << ", table " << t << ": " << tables_[t].keys.size() << " keys";
    std::cout << "\n";
  }

 private:
  struct table_words {
    std::vector<std::uint32_t> keys, starts, entries;
  };
  std::string pool_;
  std::vector<std::uint32_t> refs_;
  std::unordered_map<std::string, std::uint32_t> ids_;
  table_words tables_[fmt::table_count];
  std::vector<std::uint32_t> stopwords_[fmt::stopword_lists];
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) fail("usage: z402-lexicon-build WORDNET_DIR FREEDICT_DIR STOPWORDS_DIR SOURCES OUT");
  const std::string wordnet_dir = argv[1], freedict_dir = argv[2], stopwords_dir = argv[3], sources = argv[4], out = argv[5];
  writer w;
  std::unordered_set<std::string> lists[fmt::stopword_lists];
  const char* codes[] = {"en", "es", "pt", "fr"};
  for (std::size_t l = 0; l < fmt::stopword_lists; ++l) {
    lists[l] = read_stopwords(stopwords_dir + "/" + codes[l] + ".txt");
    w.stopwords(l, lists[l]);
  }
  wordnet wn{wordnet_dir};
  auto english = english_builder{wn, lists[0]}.build();
  drop_common_relations(english);
  w.table(fmt::english_related, english);
  w.table(fmt::spanish_english, read_freedict(freedict_dir, "spa", language::spanish, lists[0]));
  w.table(fmt::portuguese_english, read_freedict(freedict_dir, "por", language::portuguese, lists[0]));
  w.table(fmt::french_english, read_freedict(freedict_dir, "fra", language::french, lists[0]));
  w.write(out, sources);
}
