#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/cluster_spec.hpp"
#include "core/model_spec.hpp"
#include "core/perf/perf_model.hpp"
#include "core/session_stop_policy.hpp"
#include "core/start_policy.hpp"
#include "core/training_config.hpp"

namespace paratune {

/// Everything fixed for a tuning session that the reasoner needs.
struct tuning_context {
  model_spec model;
  cluster_spec cluster;
  int world_size = 8;
  precision prec = precision::bf16;
  /// The job's first configuration. Keys outside `search` keep its values.
  training_config initial;
  /// Whether trial 1 runs `initial` or the model's best candidate.
  start_policy start = start_policy::initial;
  /// Tunable keys and the values each may take; other keys stay fixed.
  std::map<std::string, std::vector<std::string>> search;
  /// Run a configuration again after a failure that said nothing about it
  /// (NCCL timeout, lost node). Off by default: no trial repeats another.
  bool retry_transient = false;
  /// Move from the last run (OptiCo's "last row shows current parameters",
  /// used by `advise`) instead of the best run so far (the tuner's default).
  bool from_last_run = false;
  /// A replay pool's measured configurations (its table): when not empty,
  /// the only ones that can run; any other is unavailable.
  std::vector<training_config> measured;
  /// When analyze() says the session has converged (`stop:`). Budget unless
  /// a job sets it: `advise` and the tests that rank candidates ask for no
  /// stop decision.
  session_stop_policy stop = session_stop_policy::budget();
  /// The performance model's knobs: the calibrated defaults, except where
  /// the tuning benchmark refits one on held-out data.
  perf_calibration cal;
};

/// One change of one key, as OptiCo writes it.
struct config_change {
  std::string key;
  std::string from;
  std::string to;
};

/// The name OptiCo's tables use for a canonical key: mbs -> MBS,
/// recompute -> AC, overlap_grad -> OVERLAP_GRAD_REDUCE, ...
std::string display_name(const std::string& key);

/// "Change AC from full to none." (several changes joined by "; ").
std::string change_text(const std::vector<config_change>& changes);

/// The changes between two configurations, canonical key order.
std::vector<config_change> diff(const training_config& from,
                                const training_config& to);

} // namespace paratune
