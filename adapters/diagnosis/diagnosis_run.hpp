#pragma once

#include <memory>
#include <string>
#include <vector>

#include <caf/expected.hpp>

#include "core/reasoning/diagnosis_evidence.hpp"
#include "core/reasoning/diagnosis_report.hpp"
#include "core/reasoning/experiment_spec.hpp"
#include "core/reasoning/knowledge_doc.hpp"
#include "core/reasoning/past_optimization.hpp"
#include "core/reasoning/proposal.hpp"
#include "core/reasoning/proposal_engine.hpp"

namespace paratune {

class knowledge_index;

/// One diagnosis: what was read, what the Analyzer concluded, what the
/// Proposal logic proposes.
struct diagnosis_outcome {
  experiment_spec experiment;
  diagnosis_evidence evidence;
  diagnosis_report report;
  proposal_set proposals;
};

/// Analyzer, then Proposal logic, on evidence already gathered. The
/// evidence is enriched from the experiment (memory limit, FLOP utilisation).
diagnosis_outcome run_diagnosis(const experiment_spec& exp, diagnosis_evidence evidence,
                                const std::vector<past_optimization>& history,
                                const knowledge_search& search);

/// A knowledge_search over an open index (citations of kind "knowledge").
knowledge_search search_of(const knowledge_index& index);

/// Every *.md knowledge document in `dir`, sorted by file name. Throws
/// input_error naming a document that does not parse; an absent directory
/// gives none.
std::vector<knowledge_doc> load_knowledge_dir(const std::string& dir);

/// Opens the index at `index_dir` and brings it up to date with the
/// documents of `docs_dir` (rebuilt atomically when they changed).
caf::expected<std::unique_ptr<knowledge_index>> open_knowledge(const std::string& index_dir,
                                                               const std::string& docs_dir);

} // namespace paratune
