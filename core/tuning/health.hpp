#pragma once

#include <string>

#include "core/trial_outcome.hpp"

namespace paratune {

/// OptiCo's mandatory health diagnosis (appendix D.2, step 0).
enum class health_state {
  severely_underutilized, ///< GPU < 50% busy and memory < 70% used (GPU busy measured)
  high_pp_overhead,       ///< PP > 1 and MFU < 0.5
  memory_bound,           ///< memory > 95% used
  performance_tune,       ///< no overriding directive
};

/// OptiCo's MEMORY_BOUND line: a run over this share of its device's
/// memory (percent) is short of memory.
constexpr double memory_bound_pct = 95;

const char* to_string(health_state s);
/// The directive that goes with a state: REDUCE_PARALLELISM,
/// REDUCE_PIPELINE_DEPTH, RESOLVE_MEMORY_PRESSURE or NONE.
const char* directive_of(health_state s);

struct health_diagnosis {
  health_state state = health_state::performance_tune;
  std::string reasoning; ///< the checks in words, with the numbers
};

/// Diagnoses the run the reasoner moves from.
health_diagnosis diagnose_health(const trial_outcome& run);

} // namespace paratune
