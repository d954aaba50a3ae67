#include "search/explain.hpp"

#include <boost/json/object.hpp>

#include <cmath>
#include <cstdio>

namespace z402::search {
namespace {

/// A score as the explanation shows it: four decimals are enough to compare two results.
double rounded(double score) { return std::round(score * 1e4) / 1e4; }

}  // namespace

std::string_view name_of(field f) {
  switch (f) {
    case name: return "name";
    case route: return "route";
    case description: return "description";
    case params: return "parameters";
    case tags: return "tags";
    case unit: return "unit";
    case mime: return "mimeType";
    case field_count: break;
  }
  return "name";
}

boost::json::array explain_page(const index& idx, const query& q, const std::vector<std::size_t>& positions,
                                const std::function<std::string_view(std::size_t)>& resource_of, const usage_prior* prior) {
  boost::json::array out;
  for (auto position : positions) {
    boost::json::array matches;
    double total = 0;
    for (auto& r : idx.explain(q, position)) {
      boost::json::array fields;
      for (auto f : r.fields) fields.emplace_back(name_of(f));
      boost::json::object m{{"word", q.words[r.term->word]}, {"term", r.term->term}, {"via", name_of(r.term->via)}};
      if (!r.term->note.empty()) m["note"] = r.term->note;
      m["fields"] = std::move(fields);
      m["score"] = rounded(r.score);
      matches.push_back(std::move(m));
      total += r.score;
    }
    const double usage = prior ? prior->factor(position) : 1.0;
    boost::json::object entry{{"resource", resource_of(position)}, {"score", rounded(total * usage)}};
    if (usage > 1.0) {
      entry["relevance"] = rounded(total);
      entry["usage"] = rounded(usage);
    }
    entry["matches"] = std::move(matches);
    out.push_back(std::move(entry));
  }
  return out;
}

std::string explain_line(const query& q, const std::vector<index::reason>& reasons, double usage) {
  std::string out;
  for (auto& r : reasons) {
    if (!out.empty()) out += "; ";
    out += q.words[r.term->word];
    if (r.term->via != expansion::typed || r.term->term != q.words[r.term->word]) out += " > " + r.term->term;
    out += " (" + std::string{name_of(r.term->via)};
    if (!r.term->note.empty()) out += ", " + r.term->note;
    out += ") in ";
    for (std::size_t i = 0; i < r.fields.size(); ++i) out += (i ? ", " : "") + std::string{name_of(r.fields[i])};
  }
  if (out.empty()) return "no match";
  if (usage > 1.0) {
    char factor[16];
    std::snprintf(factor, sizeof factor, "%.4f", usage);
    out += "; usage x";
    out += factor;
  }
  return out;
}

}  // namespace z402::search
