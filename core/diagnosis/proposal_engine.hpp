#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "core/diagnosis/diagnosis_report.hpp"
#include "core/diagnosis/experiment_spec.hpp"
#include "core/diagnosis/past_optimization.hpp"
#include "core/diagnosis/proposal.hpp"
#include "core/diagnosis/proposal_candidates.hpp"

namespace paratune {

/// Top-k knowledge-base documents for a query, best first (BM25; the
/// caller owns the index).
using knowledge_search =
    std::function<std::vector<citation>(const std::string& query, std::size_t k)>;

struct proposal_context {
  const experiment_spec* experiment = nullptr;
  const diagnosis_report* report = nullptr;
  double measured_step_ms = 0;                       ///< from the profile, 0 when unknown
  const std::vector<past_optimization>* history = nullptr;  ///< from the pool, may be null
  knowledge_search knowledge;                        ///< may be empty
  std::size_t count = 3;
};

/// ASAP's Proposal agent as code. Generates single changes of the current
/// mesh (TPU) or Megatron configuration (GPU), predicts each with the
/// matching model, and ranks first those that move the diagnosed
/// bottleneck's quantity the right way and are predicted faster, by
/// predicted step time. Predictions are scaled by measured / predicted
/// baseline step time when the profile has one. Each proposal cites the
/// past optimizations of similar jobs that made the same kind of change and
/// the knowledge-base documents BM25 finds for its bottleneck and change.
proposal_set propose(const proposal_context& ctx);

/// What the profile says of the current layout (a measured step and no
/// out-of-memory: it ran; its measured peak), as the candidates are
/// screened with it: a model's own proposal is screened the same way.
baseline_evidence baseline_evidence_of(const proposal_context& ctx);

/// A candidate as a proposal: its prediction scaled to the measured step,
/// its citations (history and knowledge) and its confidence, as propose()
/// makes each of its own (rank and exploration left to the caller).
proposal proposal_of(const proposal_context& ctx, const candidate_pool& pool, const candidate& c);

/// The BM25 query a proposal's principles are looked up with.
std::string knowledge_query(bottleneck_class b, const std::vector<std::string>& grown,
                            const std::vector<std::string>& shrunk);

} // namespace paratune
