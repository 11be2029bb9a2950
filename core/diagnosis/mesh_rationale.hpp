#pragma once

#include "core/diagnosis/diagnosis_report.hpp"
#include "core/diagnosis/experiment_spec.hpp"
#include "core/tpu/mesh_model.hpp"
#include "core/diagnosis/proposal_candidates.hpp"

namespace paratune {

/// Fills a mesh candidate's title, rationale (tied to the bottleneck, with
/// the model's numbers and §2.6's intensity test of the changed axes) and
/// trade-offs, from the baseline and candidate predictions.
void describe_mesh_candidate(const experiment_spec& exp, bottleneck_class b,
                             const mesh_prediction& base, const mesh_prediction& cand,
                             candidate& c);

} // namespace paratune
