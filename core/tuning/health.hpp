#pragma once

#include <string>

#include "core/trial_outcome.hpp"

namespace paratune {

/// OptiCo's mandatory health diagnosis (appendix D.2, step 0).
enum class health_state {
  severely_underutilized, ///< GPU busy and memory under their lines (GPU busy measured)
  high_pp_overhead,       ///< PP > 1 and MFU under pp_overhead_mfu
  memory_bound,           ///< memory over memory_bound_pct
  performance_tune,       ///< no overriding directive
};

// OptiCo's lines (appendix D.2), each in one place: the checks and their
// words in the reasoning both read them.
/// SEVERELY_UNDERUTILIZED: GPU busy under this (percent) ...
constexpr double underutilized_gpu_pct = 50;
/// ... with memory under this (percent of the device).
constexpr double underutilized_memory_pct = 70;
/// HIGH_PP_OVERHEAD: a pipeline (PP > 1) with MFU under this.
constexpr double pp_overhead_mfu = 0.5;
/// MEMORY_BOUND: a run over this share of its device's memory (percent) is
/// short of memory.
constexpr double memory_bound_pct = 95;

const char* to_string(health_state s);
/// The directive that goes with a state: REDUCE_PARALLELISM,
/// REDUCE_PIPELINE_DEPTH, RESOLVE_MEMORY_PRESSURE or NONE.
const char* directive_of(health_state s);

struct health_diagnosis {
  health_state state = health_state::performance_tune;
  std::string reasoning; ///< the checks in words, with the numbers
};

/// Whether `run` is past the state's own line (performance_tune: always).
/// The diagnosis takes the first state, in the enum's order, that it is
/// past; the guardrail checks a model's choice of state with the same.
bool shows(health_state s, const trial_outcome& run);

/// Diagnoses the run the reasoner moves from.
health_diagnosis diagnose_health(const trial_outcome& run);

} // namespace paratune
