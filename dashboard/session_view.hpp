#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "messages/wire_types.hpp"
#include "report/charts.hpp"
#include "report/session_summary.hpp"

namespace paratune {

/// What a page says about one trial beyond its summary row: the failure
/// analyst's diagnosis, the error the trial printed, and the reasoning of
/// the proposal that chose it.
struct trial_notes {
  std::optional<wire::failure_diagnosis> diagnosis;
  std::string error;      ///< trial_result.error_message
  std::string reasoning;  ///< proposal.reasoning
};

/// A trial launched whose result has not arrived yet.
struct trial_in_flight {
  int index = 0;
  std::string change;
  std::string pool;
};

/// One tuning session as the dashboard shows it.
struct session_view {
  session_summary summary;
  int64_t opened_at_ms = 0;             ///< when session_opened was stored
  std::map<int, trial_notes> notes;     ///< by trial number
  std::vector<trial_in_flight> running; ///< by trial number
  /// The running trials' TFLOP/s per GPU per logged iteration, from the
  /// metric_series the telemetry agent stored so far (its log series are
  /// stored every few seconds while a trial runs).
  live_series live;
};

/// One TPU session (ASAP's loop, actors/tpu_session) as the dashboard
/// shows it: its experiment and its runs so far.
struct tpu_session_view {
  std::string session;
  int64_t opened_at_ms = 0;       ///< when tpu_session_opened was stored (0: not stored)
  wire::tpu_session_opened job;   ///< empty in records older than that record
  wire::tpu_session_end progress; ///< session_ledger::tpu_progress: running until it ends
};

/// Either kind of tuning session.
using any_session_view = std::variant<session_view, tpu_session_view>;

/// The view of a session from its records, read through one session
/// ledger; none when they hold neither a session_opened nor a TPU session
/// (a diagnosis, the optimizations ledger, an id the pool lacks). Throws
/// wire::decode_error when a record's body does not decode.
std::optional<any_session_view> view_of(const std::string& session,
                                        const std::vector<wire::envelope>& history);

} // namespace paratune
