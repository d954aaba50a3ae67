#pragma once
// Why a result matched (docs/search.md, "Explain"), for /discovery/search?explain=1 and
// `z402-discover --explain`: per result, each typed word it matched, the term that counted,
// through which expansion, in which fields, and what it added to the score.
#include "z402/search/ranking.hpp"

#include <boost/json/array.hpp>

#include <functional>
#include <string_view>
#include <vector>

namespace z402::search {

/// "name", "route", "description", "parameters", "tags", "unit", "mimeType".
std::string_view name_of(field f);

/// [{"resource": URL, "score": S, "relevance"?: R, "usage"?: F, "matches": [{"word", "term", "via",
/// "note"?, "fields", "score"}]}] for the documents at `positions`, in their order; `resource_of`
/// names a position's resource. The matches add up to the relevance; a document that `prior`
/// lifts (a factor above 1) shows its relevance and factor, and the score is their product.
boost::json::array explain_page(const index& idx, const query& q, const std::vector<std::size_t>& positions,
                                const std::function<std::string_view(std::size_t)>& resource_of,
                                const usage_prior* prior = nullptr);

/// One result's matches as one line: "snow > weather (hypernym) in description, tags; ...", and
/// "; usage x1.06" when its usage factor is above 1.
std::string explain_line(const query& q, const std::vector<index::reason>& reasons, double usage = 1.0);

}  // namespace z402::search
