#pragma once

#include <string>
#include <vector>

#include "core/session_stop_policy.hpp"

namespace paratune {

/// One configuration the session could still run, or is running, as the
/// model expects it.
struct session_stop_candidate {
  std::string text;            ///< "Change MBS from 1 to 2." or the configuration in words
  double predicted_tflops = 0; ///< the model corrected by the session's measurements
  double sigma = 0;            ///< relative uncertainty of predicted_tflops (0.06 = 6%)
  double fit_chance = 1;       ///< the chance it fits in memory (1 - OOM risk)
  bool running = false;        ///< a trial of it is running now
};

/// What the stop decision reads: the best run so far, the candidates left,
/// and how far the model's predictions were off on this session.
struct session_stop_inputs {
  double incumbent_tflops = 0; ///< the best measured throughput; 0: nothing measured
  int incumbent_trial = 0;
  /// How much wider the model's errors were on this session than its own
  /// uncertainty said (prediction_calibration.hpp): every candidate's sigma
  /// is multiplied by it. 1: as the model said.
  double sigma_scale = 1;
  /// How many predictions that scale rests on: measured configurations
  /// held against what the runs before them predicted.
  int checks = 0;
  /// The degrees of freedom sigma_scale rests on (prediction_calibration:
  /// the checks). A candidate's error in sigmas follows a Student-t with
  /// them, not a normal: a scale measured on two checks may be far too
  /// small, and the tails say so. 0: the scale is known (normal tails).
  double scale_dof = 0;
  std::vector<session_stop_candidate> candidates;
};

/// The checks the stop needs before it may fire: until the model's
/// predictions have been held against two runs, its error on this session
/// is the prior's, and on vTrain's small models it is several times that
/// (a landscape's first two runs agreeing with the model say little).
constexpr int session_stop_min_checks = 2;

/// The chance one candidate beats `incumbent` by more than `min_gain`:
/// fit_chance times P(throughput > (1 + min_gain) incumbent), log of the
/// throughput around log of the prediction in units of sigma * scale
/// normal, or Student-t with `dof` degrees of freedom when dof > 0 (the
/// scale itself estimated from that many checks).
double chance_of_gain(const session_stop_candidate& c, double incumbent, double min_gain,
                      double scale, double dof = 0);

struct session_stop_decision {
  bool stop = false;
  /// The best chance any one candidate has of bringing more than min_gain.
  double chance_any = 1;
  /// Up to three candidates with the best chance, best first.
  std::vector<session_stop_candidate> best_left;
  std::vector<double> best_chances;  ///< their chances, in the same order
  /// Every candidate's chance, in the order of session_stop_inputs::candidates
  /// (empty when the decision did not weigh them: no incumbent, too few
  /// checks, `stop: budget`).
  std::vector<double> chances;
  std::string reason;                ///< the decision in words
};

/// Stops when the session is `policy.confidence` sure, for each candidate
/// (untried or running), that it does not beat the incumbent by more than
/// `policy.min_gain`: when every candidate's chance is at most
/// 1 - confidence. Each candidate on its own, not the union of their
/// chances: the candidates' errors are one model's, strongly correlated
/// (two dozen flag variants of one split err together), so a union taken
/// as independent would count one doubt two dozen times and never stop.
/// Never stops without a measured incumbent, before
/// session_stop_min_checks checks, nor under `stop: budget`.
session_stop_decision decide_stop(const session_stop_policy& policy, const session_stop_inputs& in);

/// Which candidate to run next while the stop holds: of the candidates `d`
/// weighed, the one not running with the best chance of beating the best
/// run by more than min_gain; `chosen` (the ranking's first choice, an index
/// into them) when it has that chance already, when the session stops, or
/// when the decision weighed nothing (no incumbent, too few checks, `stop:
/// budget`). The ranking's expected improvement values a wide candidate by
/// its uncertainty before the session's calibration, so it runs new splits
/// the session's own errors say are unlikely to win before the candidate
/// the stop waits on. Once the stop weighs the candidates, the session's
/// question is whether anything beats the best run, and the trial most
/// likely to answer yes either raises the bar for all the others or
/// settles the candidate that holds the stop.
size_t next_worth_running(const session_stop_decision& d, const session_stop_inputs& in,
                          size_t chosen);

} // namespace paratune
