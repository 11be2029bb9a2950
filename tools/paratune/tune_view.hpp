#pragma once

#include <caf/fwd.hpp>
#include <chrono>
#include <string>

#include "actors/agent_interfaces.hpp"
#include "ledger/session_ledger.hpp"
#include "report/session_summary.hpp"

namespace paratune::cli {

/// Without a terminal, a running trial's progress is printed at most this
/// often: a log (tee, nohup) shows the run is alive without a line per
/// iteration.
constexpr std::chrono::seconds tune_heartbeat{30};

struct tune_view_state {
  std::string session;
  int budget = 0;     ///< the job's trials, for "trial N/T" (skips add to it)
  /// The session's records as the pool published them (topics::record):
  /// each trial's proposal and result, the skips.
  session_ledger ledger;
  bool tty = false;           ///< redraw a progress line
  bool quiet = false;         ///< --json: print nothing live
  /// When the view last printed a line (no terminal): a heartbeat waits
  /// tune_heartbeat after it.
  std::chrono::steady_clock::time_point last_line = std::chrono::steady_clock::now();
  static inline const char* name = "tune_view";
};

/// Prints a session's progress as it happens, from the records the pool
/// publishes as it stores them (subscribe it to topics::record(session))
/// and the running trials' telemetry: one line per finished trial
/// (what changed, MFU, TFLOP/s/GPU, peak memory, outcome, the reason). On a
/// terminal, a progress line redrawn with the running trial's iterations;
/// otherwise (a file, a pipe) a line as each trial starts and, while trials
/// run, a heartbeat (iteration, time per iteration, throughput) at most
/// every tune_heartbeat. Every line is flushed as it is printed.
bus_agent_actor::behavior_type tune_view(bus_agent_actor::stateful_pointer<tune_view_state> self,
                                         std::string session, int budget, bool tty, bool quiet);

} // namespace paratune::cli
