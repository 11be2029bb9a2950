#pragma once

#include <memory>
#include <string>

#include <caf/expected.hpp>

#include "core/diagnosis/proposal_engine.hpp"

namespace paratune {

class knowledge_index;

/// Opens the BM25 index at `index_dir` and brings it up to date with the
/// documents of `docs_dir` (rebuilt atomically when they changed).
caf::expected<std::unique_ptr<knowledge_index>> open_knowledge(const std::string& index_dir,
                                                               const std::string& docs_dir);

/// A knowledge_search over an open index (citations of kind "knowledge").
/// The index must outlive the search.
knowledge_search search_of(const knowledge_index& index);

} // namespace paratune
