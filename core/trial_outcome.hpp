#pragma once

#include <string>
#include <vector>

#include "core/training_config.hpp"

namespace paratune {

/// stopped: ended early by the early stopper (stable, or unable to beat the
/// incumbent, or over its wall-clock limit); its throughput was measured
/// over the iterations it ran.
enum class trial_status { succeeded, failed, skipped, stopped };

const char* to_string(trial_status s);
bool parse_trial_status(const std::string& text, trial_status& out);

/// Whether a trial that ended so spent one of the session's budget: every
/// one that was launched. A skipped trial (refused before launch: the
/// memory screen, a replay table that never measured it) takes a trial
/// number and spends nothing. What every count of a session's trials
/// counts: tune's header and end, its live lines, `sessions`, `list`, the
/// report and the dashboard.
inline bool spends_budget(trial_status s) { return s != trial_status::skipped; }

/// Why a trial failed, as the failure analyst classified it.
/// What made a trial fail. launcher_error: the job never reached training
/// (a scheduler that refused or lost it, a command that could not start).
enum class failure_kind {
  none,
  oom,
  config_invalid,
  nccl_timeout,
  node_failure,
  launcher_error,
  nan,
  other,
};

const char* to_string(failure_kind k);
bool parse_failure_kind(const std::string& text, failure_kind& out);

/// One finished (or skipped) trial as the reasoner sees it: a row of the
/// OptiCo performance table.
struct trial_outcome {
  int trial = 0;                ///< the session's trial number; 0: its row's position
  training_config config;
  trial_status status = trial_status::succeeded;
  double tflops_per_gpu = 0;
  double mfu = 0;
  double peak_memory_mib = 0;
  double memory_limit_mib = 0;
  double gpu_util_pct = 0;      ///< average GPU busy share, percent
  failure_kind failure = failure_kind::none;
  /// Parameters the failure analyst blamed (canonical keys); empty when the
  /// failure was not parameter-related.
  std::vector<std::string> blamed;
  int confidence = 0;            ///< of the failure diagnosis, 0..100
  std::string reason;            ///< the diagnosis or skip reason in words

  /// It ran and its throughput was measured: to completion, or until the
  /// early stopper had its answer.
  bool measured() const {
    return (status == trial_status::succeeded || status == trial_status::stopped)
           && tflops_per_gpu > 0;
  }
  /// It did not fail: it succeeded, or was stopped with a measurement.
  bool ran() const { return status == trial_status::succeeded || measured(); }
  double memory_usage_pct() const {
    return memory_limit_mib > 0 ? 100.0 * peak_memory_mib / memory_limit_mib : 0;
  }
  /// A failure that says nothing about the configuration (timeout, node loss).
  bool retryable() const {
    return status == trial_status::failed
           && (failure == failure_kind::nccl_timeout || failure == failure_kind::node_failure
               || failure == failure_kind::launcher_error);
  }
};

/// The trial number of `history[i]`: its own, or its 1-based row.
inline int trial_number(const std::vector<trial_outcome>& history, size_t i) {
  return history[i].trial > 0 ? history[i].trial : int(i) + 1;
}

/// A trial that is running (or queued in its pool) and has no result yet.
struct pending_trial {
  int trial = 0;
  training_config config;
};

} // namespace paratune
