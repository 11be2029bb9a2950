#pragma once

// What a strategy's trials achieved, at a budget: the share of the
// ground-truth optimum its best measured configuration truly reaches, when
// it first got within 99%, how many trials failed and the GPU time spent.

#include <vector>

#include "bench/tuning_quality/strategies.hpp"

namespace paratune::bench {

struct run_metrics {
  double share = 0;          ///< true throughput of the best measured / optimum
  int trials_to_99 = 0;      ///< first trial whose incumbent reaches 99%, 0 if none
  int trials = 0;            ///< trials run (an exhausted reasoner may stop early)
  int failed = 0;
  int oom = 0;               ///< failed trials that ran out of memory (the tuner's own)
  double gpu_hours = 0;
  int refused = 0;           ///< configurations refused before launch (replay: not measured)
};

/// The first `budget` trials of `log`. The incumbent is the configuration
/// with the best measured throughput so far, as the tuner reports it; its
/// share uses the configuration's true throughput, not the noisy measurement.
inline run_metrics measure_run(const trial_log& log, int budget, double optimum, int gpus) {
  run_metrics m;
  double best_measured = 0, incumbent_truth = 0;
  for (int i = 0; m.trials < budget && i < int(log.size()); ++i) {
    const auto& r = log[i];
    if (r.unavailable) {
      ++m.refused;
      continue;
    }
    ++m.trials;
    m.failed += r.outcome.status == trial_status::failed;
    m.oom += r.outcome.failure == failure_kind::oom;
    m.gpu_hours += r.wall_s * gpus / 3600;
    if (r.outcome.status == trial_status::succeeded && r.outcome.tflops_per_gpu > best_measured) {
      best_measured = r.outcome.tflops_per_gpu;
      incumbent_truth = r.true_tflops;
    }
    if (m.trials_to_99 == 0 && optimum > 0 && incumbent_truth >= 0.99 * optimum)
      m.trials_to_99 = m.trials;
  }
  m.share = optimum > 0 ? incumbent_truth / optimum : 0;
  return m;
}

/// What a whole run cost until its strategy stopped (the stop rule, or the
/// budget for a strategy without one): GPU-hours to the answer.
struct stop_metrics {
  run_metrics run;           ///< the whole log, up to the budget
  int infrastructure = 0;    ///< failed: NCCL timeout, lost node, launcher
  int other_failures = 0;    ///< failed: invalid, NaN, other
  int oom_after_first = 0;   ///< OOM trials after the run's first OOM
};

inline stop_metrics measure_stop(const trial_log& log, int budget, double optimum, int gpus) {
  stop_metrics m;
  m.run = measure_run(log, budget, optimum, gpus);
  int trials = 0;
  for (const auto& r : log) {
    if (r.unavailable)
      continue;
    if (++trials > budget)
      break;
    if (r.outcome.status != trial_status::failed)
      continue;
    const auto k = r.outcome.failure;
    if (k == failure_kind::oom)
      continue;
    if (k == failure_kind::nccl_timeout || k == failure_kind::node_failure
        || k == failure_kind::launcher_error)
      ++m.infrastructure;
    else
      ++m.other_failures;
  }
  m.oom_after_first = std::max(0, m.run.oom - 1);
  return m;
}

/// Means over many runs of one strategy at one budget.
struct summary {
  int runs = 0;
  double share = 0;
  double min_share = 1;
  int reached_99 = 0;        ///< runs whose incumbent reached 99% within the budget
  double trials_to_99 = 0;   ///< mean over those runs
  int trials = 0;
  int failed = 0;
  int oom = 0;
  double gpu_hours = 0;
  int refused = 0;

  void add(const run_metrics& m) {
    ++runs;
    share += m.share;
    min_share = std::min(min_share, m.share);
    if (m.trials_to_99 > 0) {
      ++reached_99;
      trials_to_99 += m.trials_to_99;
    }
    trials += m.trials;
    failed += m.failed;
    oom += m.oom;
    gpu_hours += m.gpu_hours;
    refused += m.refused;
  }
  double mean_share() const { return runs ? share / runs : 0; }
  double mean_trials_to_99() const { return reached_99 ? trials_to_99 / reached_99 : 0; }
  double failed_rate() const { return trials ? double(failed) / trials : 0; }
  double oom_rate() const { return trials ? double(oom) / trials : 0; }
  double mean_gpu_hours() const { return runs ? gpu_hours / runs : 0; }
  double mean_refused() const { return runs ? double(refused) / runs : 0; }
};

/// Means of stop_metrics over many runs of one strategy.
struct stop_summary {
  summary run;               ///< the whole runs, up to the stop
  double oom_after_first = 0;
  double infrastructure = 0;
  double other_failures = 0;

  void add(const stop_metrics& m) {
    run.add(m.run);
    oom_after_first += m.oom_after_first;
    infrastructure += m.infrastructure;
    other_failures += m.other_failures;
  }
  double mean(double total) const { return run.runs ? total / run.runs : 0; }
};

} // namespace paratune::bench
