#pragma once

// The records a TPU session stores besides its trials' rows: its end, and
// an improvement for the optimization ledger. Made here from the ledger, so
// that the actor only stores them.

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "core/diagnosis/experiment_spec.hpp"
#include "core/session_state.hpp"
#include "ledger/session_ledger.hpp"
#include "messages/wire_types.hpp"

namespace paratune {

/// The session's end: every row in trial order, runs still going recorded
/// as the end leaves them (stopped, with `text` or "the session ended"),
/// and the fastest complete run.
wire::tpu_session_end tpu_end_record(const session_ledger& ledger, session_state state,
                                     const std::string& text, const tpu_mesh& job_mesh,
                                     std::int64_t now_ms);

/// What session `id` learned when run `to` beat the best run `from`: an
/// entry later diagnoses can cite.
wire::optimization_record tpu_improvement(const experiment_spec& exp, const std::string& id,
                                          const wire::tpu_trial_row& from,
                                          const wire::tpu_trial_row& to);

/// The improvement `row` makes when it ends as the new best run over an
/// earlier best among `rows` (the session's rows before it); none otherwise.
std::optional<wire::optimization_record>
tpu_improvement_by(const experiment_spec& exp, const std::string& id,
                   const std::map<int, wire::tpu_trial_row>& rows, const wire::tpu_trial_row& row);

} // namespace paratune
