#pragma once

#include <caf/fwd.hpp>
#include <string>

#include "report/session_summary.hpp"

namespace paratune::cli {

struct tune_view_state {
  std::string session;
  trial_count count;  ///< the budget and the skips seen: "trial N/T"
  bool tty = false;           ///< redraw a progress line
  bool quiet = false;         ///< --json: print nothing live
  static inline const char* name = "tune_view";
};

/// Prints a session's progress as it happens: one line per finished trial
/// (what changed, MFU, TFLOP/s/GPU, peak memory, outcome, the reason) and,
/// on a terminal, a progress line with the running trial's iterations.
caf::behavior tune_view(caf::stateful_actor<tune_view_state>* self, std::string session,
                        int budget, bool tty, bool quiet);

} // namespace paratune::cli
