#pragma once

// One trial on the simulated cluster, in process: what paratune-sim would
// print, reduced to what the validator and the failure analyst take from
// it (core/perf/simulated_cluster.hpp's simulated_run draws the same 1%
// noise and the same injected failures; core/trial_scoring.hpp scores the
// iterations; core/tuning/failure_analysis.hpp classifies failures).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "bench/tuning_quality/scenario.hpp"
#include "core/megatron_rules.hpp"
#include "core/model_flops_utilization.hpp"
#include "core/tuning/failure_analysis.hpp"
#include "core/trial_outcome.hpp"
#include "core/trial_scoring.hpp"

namespace paratune::bench {

/// Wall-clock costs a trial pays besides its iterations.
struct trial_costs {
  double startup_s = 120;        ///< launch, NCCL init, model build, data loaders
  double invalid_s = 30;         ///< a start-up assertion fires before the model is built
  double watchdog_s = 600;       ///< NCCL timeout: Megatron's default 10 minutes
};

/// A finished trial: what the tuner sees, the truth behind it, and its cost.
struct trial_record {
  trial_outcome outcome;
  double true_tflops = 0;   ///< the hidden truth of the configuration (0 if it cannot run)
  double wall_s = 0;        ///< wall-clock time the trial held the GPUs
  /// Refused before launch: the replayed reality never measured it. Costs
  /// no trial and no GPU time; strategies count it, not against the budget.
  bool unavailable = false;
};

/// Trials of `log` that ran (or were skipped as a run): what a budget counts.
inline int trials_spent(const std::vector<trial_record>& log) {
  return int(std::count_if(log.begin(), log.end(),
                           [](const trial_record& r) { return !r.unavailable; }));
}

/// `x` as paratune-sim prints it with `decimals` digits (%.1f, %.0f): the
/// validator of `paratune tune` reads the printed numbers, so the replay
/// must see the same ones or a near tie between two candidates can break
/// the other way.
inline double as_printed(double x, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(x * scale) / scale;
}

class trial_runner {
public:
  trial_runner(const scenario& s, double failure_rate, trial_costs costs = {})
    : s_(s), failure_rate_(failure_rate), costs_(costs) {}

  trial_record run(const training_config& c, uint64_t seed) const {
    trial_record r;
    r.outcome.config = c;
    r.outcome.memory_limit_mib = s_.job.cluster.memory_mib();
    const auto& ctx = s_.context;
    const auto violations = check_megatron_rules(ctx.model, c, ctx.world_size);
    if (!violations.empty()) {
      fail(r, failure_kind::config_invalid, violations.front().message);
      r.wall_s = costs_.invalid_s;
      return r;
    }
    const int k = s_.index_of(c);
    if (s_.reality == reality::vtrain)
      return replay(r, k);
    const simulated_outcome sim =
      k >= 0 ? s_.truth[k]
             : true_outcome(s_.reality, ctx.model, ctx.cluster, ctx.world_size, c, ctx.prec);
    simulated_run run(sim, seed, failure_rate_, s_.job.train_iters, ctx.world_size);
    r.wall_s = costs_.startup_s;
    std::vector<iteration_sample> samples;
    double util = 0;
    for (int64_t it = 1; it <= s_.job.train_iters; ++it) {
      const auto step = run.next();
      r.wall_s += step.elapsed_ms / 1000;
      if (it == 1 && sim.out_of_memory) {
        fail(r, failure_kind::oom, "torch.OutOfMemoryError: CUDA out of memory.");
        return r;
      }
      if (run.failure().kind != injected_failure_kind::none && it == run.failure().iteration) {
        if (run.failure().kind == injected_failure_kind::nccl_timeout) {
          r.wall_s += costs_.watchdog_s;
          fail(r, failure_kind::nccl_timeout, "Watchdog caught collective operation timeout");
        } else {
          fail(r, failure_kind::other, "RuntimeError: NCCL communicator was aborted. Original reason for "
                           "failure was: NCCL error: remote process exited or there was a "
                           "network error");
        }
        return r;
      }
      samples.push_back({it, as_printed(step.elapsed_ms, 1), as_printed(step.tflops_per_gpu, 1)});
      util += as_printed(step.gpu_util_pct, 1);
    }
    const auto score = score_iterations(samples);
    auto& o = r.outcome;
    o.status = trial_status::succeeded;
    o.tflops_per_gpu = score.tflops_per_gpu;
    o.mfu = model_flops_utilization(score.tflops_per_gpu, ctx.cluster.device);
    o.peak_memory_mib = as_printed(sim.truth.peak_memory_mib, 0);  // the monitor line
    o.gpu_util_pct = util / double(samples.size());
    r.true_tflops = sim.truth.tflops_per_gpu;
    return r;
  }

private:
  /// The measured reality: exactly what was measured, or a refusal.
  trial_record replay(trial_record& r, int k) const {
    if (k < 0) {
      r.unavailable = true;
      r.outcome.status = trial_status::skipped;
      r.outcome.reason = "unavailable: not in the measured set";
      return r;
    }
    const auto& m = s_.truth[k];
    r.wall_s = costs_.startup_s + double(s_.job.train_iters) * m.truth.iteration_time_s;
    if (m.out_of_memory) {
      fail(r, failure_kind::oom, "torch.OutOfMemoryError: CUDA out of memory.");
      return r;
    }
    auto& o = r.outcome;
    o.status = trial_status::succeeded;
    o.tflops_per_gpu = m.truth.tflops_per_gpu;
    o.mfu = m.truth.mfu;
    o.peak_memory_mib = m.truth.peak_memory_mib;
    r.true_tflops = m.truth.tflops_per_gpu;
    return r;
  }

  static void fail(trial_record& r, failure_kind kind, const std::string& message) {
    auto& o = r.outcome;
    o.status = trial_status::failed;
    const auto v = analyze_failure(kind, message, o.config, 1);
    o.failure = v.kind;
    o.blamed = v.blamed;
    o.confidence = v.confidence;
    o.reason = v.summary;
  }

  const scenario& s_;
  double failure_rate_;
  trial_costs costs_;
};

} // namespace paratune::bench
