#pragma once

#include <cstdint>

#include "messages/wire_types.hpp"

namespace paratune {

/// What a replay pool answers a trial (`kind: replay`): the run its table
/// measured for the trial's configuration, as a real trial's result would
/// record it. A measured run succeeds with the table's TFLOP/s per GPU and
/// iteration time, MFU against the job's device peak, and the GPU-hours its
/// train_iters iterations would take; a run the table marks failed fails
/// the same way (an OOM as an OOM). A configuration the table did not
/// measure is skipped as unavailable (core/tuning/safety_guards.hpp's
/// unavailable_reason): nothing ran, and no trial of the budget is spent.
wire::trial_result replay_answer(const wire::pool_wire& pool, const wire::proposal& p,
                                 const wire::session_opened& job, int64_t now_ms);

} // namespace paratune
