#pragma once

#include <string>
#include <vector>

#include "core/pool_placement.hpp"
#include "ledger/session_ledger.hpp"

namespace paratune {

/// The job's pools as placement sees them now: what runs on each (from the
/// ledger's trials in flight), which is down (its latest trial never
/// started) and which is paused (max_launch_failures such trials in a
/// row). A job without pools has one simulated pool, "sim", that runs one
/// trial at a time.
std::vector<pool_load> pool_loads(const wire::session_opened& job, const session_ledger& ledger);

/// The paused pools in words, one per pool joined by "; ": "pool 'a100': 3
/// trials in a row never started (last: sbatch: error: ...)". Empty when
/// none is paused.
std::string paused_pools_text(const std::vector<pool_load>& loads, const session_ledger& ledger);

/// The failed trials due a retry: those the failure analyst judged worth
/// another run (infrastructure, or a failure it could not tie to the
/// configuration), each once; a retry is never retried.
std::vector<const ledger_trial*> retries_due(const session_ledger& ledger);

/// The trials to launch for `report`, placed on pools, numbered from the
/// ledger's next trial, without their commands (trial_command):
/// - at most the report's slots and the pools' free slots;
/// - the retries due first, each on another pool than the one it failed
///   on; a retry that has to wait keeps its share of the budget;
/// - then the ranked suggestions in order, skipping a configuration that
///   runs now or was chosen already, within the budget left;
/// - at most one configuration at a time whose predicted peak is tight
///   against the device (within the model's measured error), counting
///   the ones running: its run, fitting or not, teaches the memory screen
///   before another such one is risked.
std::vector<wire::proposal> choose_trials(const wire::analysis_report& report,
                                          const wire::session_opened& job,
                                          const session_ledger& ledger);

} // namespace paratune
