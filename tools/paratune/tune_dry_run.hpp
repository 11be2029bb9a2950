#pragma once

#include "session_start/session_plan.hpp"

namespace paratune::cli {

/// `paratune tune JOB --dry-run`: the job checked (plan_session_file did,
/// the initial configuration included), then its search space before and
/// after screening, the plan's top five layouts and the predicted GPU-hours
/// to the stop. Launches nothing and opens no pool. Returns the exit status.
int print_tune_dry_run(const session_plan& plan, const std::string& job_file, bool json);

} // namespace paratune::cli
