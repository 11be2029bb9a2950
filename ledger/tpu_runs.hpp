#pragma once

#include <map>
#include <vector>

#include "messages/wire_types.hpp"

namespace paratune {

// What a TPU run's row says of it, decided here once for the session, the
// ledger, the report, `ask` and `tune`.

/// The run measured a step time: it ended without an error. A row gets its
/// step time only when its run ends, so rows of every age read alike.
bool tpu_run_measured(const wire::tpu_trial_row& r);

/// The run measured its step time over every step it was to run: measured,
/// and not ended early (a run ended early is slower than the best by the
/// rung rule, and measured fewer steps). Only such a run can be the best.
bool tpu_run_complete(const wire::tpu_trial_row& r);

/// The fastest complete run, by trial number; 0 when none is. Ties go to
/// the earlier trial.
int tpu_fastest_run(const std::vector<wire::tpu_trial_row>& rows);
int tpu_fastest_run(const std::map<int, wire::tpu_trial_row>& rows);

/// The framework's name every TPU session's trials run under.
inline constexpr const char* tpu_framework_name = "maxtext";

/// A TPU session's job as the trial runner (the validator) reads any
/// session's: MaxText as the framework, its pools (the one simulated pool,
/// named "simulated", when it names none), early stop, `env:`, secret
/// names, the slice's chips as the world size and its cluster.
wire::session_opened tpu_runner_job(const wire::tpu_session_opened& opened);

} // namespace paratune
