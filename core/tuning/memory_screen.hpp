#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/perf/perf_model.hpp"
#include "core/trial_outcome.hpp"

namespace paratune {

/// The pre-launch memory screen: the model's peak estimate, corrected by
/// what this session measured.
///
/// Memory errors are mostly a fixed offset (allocator, context, workspaces
/// the model does not see), so the measured - predicted difference of the
/// nearest successful run is added to the prediction. Where the model's
/// activations themselves are off (an MoE layer's, by a third on the
/// independent truth), the error grows with the micro batch: once runs of
/// a configuration's layout (TP, PP, CP, EP, VPP) span enough of the memory
/// that grows with the micro batch, the error is a line in it, fitted on
/// them (activation_error_line). Without measurements the model's own
/// margin stands in: a peak over the device, or one its measured error band
/// cannot bring under it, is refused; one at or below the device stays for a
/// run to decide. `plan` screens its space with this screen too, so that a
/// layout plan ranks is one tune would run. An OOM teaches twice: every
/// configuration that needs at least as much memory by construction
/// (memory_order.hpp) has its estimate raised past the device, for this
/// session, until a measured success that needs at least as much says it
/// fits (oom_lesson_for); and a close neighbour predicted to need about as
/// much memory is refused too.
class memory_screen {
public:
  using predictor = std::function<const perf_prediction&(const training_config&)>;

  memory_screen(const std::vector<trial_outcome>& history, predictor predict);

  /// What an out-of-memory run of this session says about `c`: nothing, or
  /// the first OOM whose configuration `c` needs at least as much memory
  /// as, with `c`'s estimate raised past the device.
  struct oom_lesson {
    int trial = 0;               ///< the trial that ran out of memory
    training_config failed;      ///< its configuration
    double model_peak_mib = 0;   ///< the model's estimate of `c`
    double raised_peak_mib = 0;  ///< the estimate after the lesson: above the device
    double limit_mib = 0;
    std::string text;            ///< the lesson in words ("known failure: trial 5 ...")
  };
  std::optional<oom_lesson> oom_lesson_for(const training_config& c) const;

  /// Why `c` cannot fit, or nothing.
  std::optional<std::string> check(const training_config& c, const perf_prediction& p) const;

  /// The corrected peak estimate in MiB, and whether a measurement backs it.
  std::pair<double, bool> corrected_peak(const training_config& c,
                                         const perf_prediction& p) const;

private:
  /// The past trials of one configuration: a history of many thousand rows
  /// holds few distinct configurations, and each candidate is compared with
  /// every one, so the comparisons run per configuration, not per row.
  struct config_runs {
    int first = 0;              ///< history index of its first trial
    int count = 0;              ///< successful trials with a peak (for fits)
    double offset_sum = 0;      ///< sum of measured - predicted peak over them
    double predicted_peak = 0;  ///< the model's peak for the configuration
    /// The part of that peak that grows with the micro batch (activations,
    /// logits, the attention working set).
    double predicted_varying = 0;
  };

  /// The measured error (measured - predicted peak) of the runs of `c`'s
  /// layout as `fixed + per_mib * varying`, least squares over their
  /// configurations, when at least two ran whose varying memory differs by
  /// half or more; `per_mib` is bounded to [-0.5, 0.5].
  struct error_line {
    double fixed = 0;
    double per_mib = 0;
  };
  std::optional<error_line> activation_error_line(const training_config& c) const;

  const std::vector<trial_outcome>& history_;
  predictor predict_;
  std::vector<config_runs> fits_;  ///< configurations that ran, by first trial
  std::vector<config_runs> ooms_;  ///< configurations that ran out of memory
  /// History indices of the configurations that ran, each once (a replayed
  /// run may have no peak, but it fitted).
  std::vector<int> ran_;
};

/// The memory screen of a session that has run nothing yet: what tune
/// refuses on the model alone (memory_screen::check with no history). `plan`
/// and `predict --job` judge by it, so that they call "does not fit" what
/// tune would not run.
std::optional<std::string> screen_before_any_run(const training_config& c,
                                                 const perf_prediction& p);

/// How different two configurations are: structural keys (tp, pp, cp, ep)
/// weigh 3, mbs, recompute and vpp 2, flags 1.
int config_distance(const training_config& a, const training_config& b);

} // namespace paratune
