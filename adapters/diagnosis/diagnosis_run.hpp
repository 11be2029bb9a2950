#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/diagnosis/diagnosis_evidence.hpp"
#include "core/diagnosis/diagnosis_report.hpp"
#include "core/diagnosis/experiment_spec.hpp"
#include "core/retrieval/knowledge_doc.hpp"
#include "core/diagnosis/past_optimization.hpp"
#include "core/diagnosis/proposal.hpp"
#include "core/diagnosis/proposal_engine.hpp"

namespace paratune {

/// One diagnosis: what was read, what the Analyzer concluded, what the
/// Proposal logic proposes.
struct diagnosis_outcome {
  experiment_spec experiment;
  diagnosis_evidence evidence;
  diagnosis_report report;
  proposal_set proposals;
};

/// The Analyzer's step: `evidence` enriched from the experiment (memory
/// limit, FLOP utilisation), then classified.
diagnosis_report analyze_job(const experiment_spec& exp, diagnosis_evidence& evidence);

/// The Proposal step: three ranked proposals for a diagnosed job.
proposal_set propose_for(const experiment_spec& exp, const diagnosis_report& report,
                         double measured_step_ms, const std::vector<past_optimization>& history,
                         const knowledge_search& search);

/// Both steps, as the Analyzer and Proposal agents run them one after the
/// other (for tests and benchmarks that need no bus).
diagnosis_outcome run_diagnosis(const experiment_spec& exp, diagnosis_evidence evidence,
                                const std::vector<past_optimization>& history,
                                const knowledge_search& search);

/// Every *.md knowledge document in `dir`, sorted by file name. Throws
/// input_error naming a document that does not parse; an absent directory
/// gives none.
std::vector<knowledge_doc> load_knowledge_dir(const std::string& dir);

} // namespace paratune
