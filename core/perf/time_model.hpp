#pragma once

#include "core/perf/collectives.hpp"
#include "core/perf/gemm_efficiency.hpp"
#include "core/perf/perf_context.hpp"

namespace paratune {

/// Seconds one transformer layer costs one GPU for one micro-batch.
struct layer_times {
  double forward = 0;        ///< GEMMs, attention and element-wise work
  double backward = 0;
  double recompute = 0;      ///< extra forward work under the recompute mode (all layers recomputed)
  double attention_forward = 0; ///< attention core alone (what selective recompute repeats)
  double tp_forward = 0;     ///< exposed TP/SP collectives
  double tp_backward = 0;
  double cp = 0;             ///< exposed context-parallel ring, forward + backward
  double ep = 0;             ///< expert all-to-alls, forward + backward
  double overlap_penalty = 0;///< compute slowed by overlapped TP/CP traffic
};

layer_times time_layer(const perf_context& x, const kernel_target& k);

/// Seconds of one micro-batch on each stage, split as the breakdown reports it.
struct stage_times {
  double compute = 0;
  double recompute = 0;
  double tp = 0;
  double cp = 0;
  double ep = 0;
  double pp = 0;
  double backward = 0;       ///< the backward part, the window DP overlap uses
  double forward = 0;
  double total() const { return compute + recompute + tp + cp + ep + pp; }
};

stage_times time_stage(const perf_context& x, const kernel_target& k,
                       const layer_times& layer, int stage);

/// Exposed data-parallel time of a stage at the end of the iteration, plus
/// the compute slowdown its overlapped part causes.
double data_parallel_time(const perf_context& x, int stage, const stage_times& st);

/// Optimizer step of the most loaded stage: memory-bound Adam.
double optimizer_time(const perf_context& x, const kernel_target& k, int stage);

/// Iteration time and its breakdown (before the straggler factor).
time_breakdown time_iteration(const perf_context& x);

} // namespace paratune
