#pragma once

#include <string>

namespace paratune {

/// When a session ends before its trial budget (the job's `stop:`).
/// `budget`: every trial of the budget runs (OptiCo's fixed count, and
/// paratune before issue 25). `converged`: the session ends once no untried
/// candidate is likely to beat the best run by more than `min_gain`
/// (core/tuning/session_stop.hpp decides it).
enum class session_stop_mode { budget, converged };

/// "budget", "converged".
const char* to_string(session_stop_mode m);
bool parse_session_stop_mode(const std::string& text, session_stop_mode& out);

struct session_stop_policy {
  session_stop_mode mode = session_stop_mode::converged;
  /// The smallest gain over the best run still worth a trial (0.01: 1%).
  double min_gain = 0.01;
  /// How sure the session must be that no untried candidate brings
  /// `min_gain` before it stops.
  double confidence = 0.9;

  /// Today's behaviour: the whole budget.
  static session_stop_policy budget() { return {session_stop_mode::budget, 0.01, 0.9}; }

  friend bool operator==(const session_stop_policy&, const session_stop_policy&) = default;
};

} // namespace paratune
