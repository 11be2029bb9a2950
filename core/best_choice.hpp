#pragma once

#include <map>
#include <string>
#include <vector>

namespace paratune {

/// Which measured trial a session answers with, by one stated rule: the
/// highest throughput, unless other trials measured within noise of it;
/// then, among those, the most memory headroom, then the simpler
/// configuration, then the higher measurement, then the earlier trial.
/// The report, `export`, the dashboard's answer and `ask` all take the
/// best trial from here (report/session_summary's summarize), so that two
/// trials measuring 236.1 TFLOP/s/GPU are told apart the same way in every
/// view, and the answer says why.

/// Two throughputs whose difference is at most this share of the higher
/// cannot be told apart by one measurement each: the median of ~10 scored
/// iterations carries about 0.5% run-to-run noise
/// (throughput_estimator::measured_sigma), so the difference of two has a
/// sigma of about 0.7%, and the tuner itself counts a gain under 1%
/// (candidate_scorer::worthwhile) as not worth a trial.
inline constexpr double throughput_noise = 0.01;

/// Memory headroom that differs by less than this is the same headroom: a
/// peak measured a few hundred MiB apart does not make one configuration
/// safer than another.
inline constexpr double headroom_resolution_mib = 1024;

/// Whether `a` and `b` (> 0) lie within throughput_noise of each other.
bool within_noise(double a, double b);

/// The keys of a configuration that are off their default (the value a
/// default training_config holds): fewer is simpler (no overlap turned on,
/// no recomputation, no extra parallelism). A key this paratune does not
/// know counts as off its default.
int non_default_keys(const std::map<std::string, std::string>& config);

/// One measured trial as the rule reads it.
struct measured_option {
  int trial = 0;
  double tflops = 0;
  double peak_mib = 0;   ///< 0: not reported
  double limit_mib = 0;  ///< the device's memory; 0: not reported
  int non_default = 0;   ///< non_default_keys() of its configuration
};

/// What decided between the chosen trial and the runner-up.
enum class tie_break {
  none,        ///< no other trial measured within noise: the highest measurement
  headroom,    ///< more memory headroom
  simpler,     ///< fewer keys off their default
  throughput,  ///< same headroom and simplicity: the higher measurement
  earlier,     ///< the same in everything: the earlier trial
};

struct best_choice {
  int trial = 0;    ///< the chosen trial; 0 when there was none to choose
  int fastest = 0;  ///< the highest measurement (the earlier trial on an exact tie)
  /// Every trial within noise of the fastest, chosen included, in trial
  /// order; empty when only one was.
  std::vector<int> tied;
  /// The tied trial the choice is set against: the fastest when the rule
  /// chose another, else the one it ranks next; 0 without a tie.
  int runner_up = 0;
  tie_break by = tie_break::none;
  bool headroom_known = false;   ///< both reported their peak memory
  double headroom_gain_mib = 0;  ///< the chosen trial's headroom over the runner-up's
  int fewer_keys = 0;            ///< the runner-up's non_default less the chosen trial's
};

/// Applies the rule to the measured trials (any order).
best_choice choose_best(const std::vector<measured_option>& options);

/// The rule's decision in words, for the report, the dashboard and `ask`;
/// empty when no other trial measured within noise: "trials 3 and 6
/// measured within noise of each other (236.1 vs 236.1 TFLOP/s/GPU, within
/// 1%); trial 3 is chosen as the simpler configuration: 1 key fewer off
/// its default than trial 6, at the same memory headroom."
std::string tie_sentence(const best_choice& c, const std::vector<measured_option>& options);

} // namespace paratune
