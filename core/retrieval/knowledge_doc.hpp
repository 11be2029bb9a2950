#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace paratune {

/// One knowledge-base document: a short principle the Proposal logic cites.
struct knowledge_doc {
  std::string id;                 ///< stable, from the front matter ("hbm-bound-ops")
  std::string title;
  std::vector<std::string> tags;
  std::string body;
};

/// A document found for a query, with its BM25 score.
struct knowledge_hit {
  std::string id;
  std::string title;
  double score = 0;
  std::string excerpt;            ///< the body's first sentence or two
};

/// Parses a Markdown document with front matter:
///   ---
///   id: hbm-bound-ops
///   title: HBM-bound operations
///   tags: [hbm, bandwidth]
///   ---
///   body...
/// `where` names it in errors. Throws input_error when the front matter or
/// the id/title is missing.
knowledge_doc parse_knowledge_doc(std::string_view text, const std::string& where);

/// The text that is indexed: title (twice, titles are dense), tags, body.
std::string indexed_text(const knowledge_doc& d);

/// The first sentences of the body, at most `max_chars`.
std::string excerpt_of(const std::string& body, std::size_t max_chars = 240);

} // namespace paratune
