#pragma once

#include <string>

#include "core/session_state.hpp"
#include "ledger/session_ledger.hpp"

namespace paratune {

/// What a GPU session's coordinator does next (actors/tuning_session),
/// decided from its ledger alone: a session that restarts decides the same.
struct session_step {
  enum class action {
    wait,    ///< a request or a diagnosis is awaited, or every slot is busy
    ask,     ///< an analysis request for `slots` trials, numbered `request`
    finish,  ///< store the session's end, `end`, with `text`
    fail,    ///< the session fails, for `text`
  };
  action what = action::wait;
  int request = 0;
  int slots = 0;
  session_state end = session_state::finished;
  std::string text;
};

/// What the coordinator knows besides the ledger.
struct session_step_inputs {
  int capacity = 1;  ///< the pools' slots together
  int budget = 1;    ///< the job's trial budget
  /// The number of a request sent and not in the ledger yet (0: none):
  /// awaited as the ledger's latest would be.
  int asked = 0;
};

/// The next step of OptiCo's loop with several trials in flight:
/// - while a request is unanswered, or a failed trial awaits its diagnosis
///   (its constraint shapes the next choices), wait;
/// - once the last answer said the session converged, or that no pool is
///   left, end (converged, or failed with why) when no trial is in flight;
/// - when the budget is spent, or the last request saw every result (what
///   it could not place waits for one), end when none is in flight: the
///   budget spent, or nothing new left after the last result;
/// - otherwise ask for the free slots the budget allows, after the results
///   so far.
session_step next_session_step(const session_ledger& ledger, const session_step_inputs& in);

} // namespace paratune
