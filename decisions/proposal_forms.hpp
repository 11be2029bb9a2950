#pragma once

#include <optional>

#include "messages/wire_types.hpp"

namespace paratune {

/// The proposals the strategy generator stores, made from an analysis
/// report: each names the request it answers and carries the report's
/// health and reasoning, so that a proposal explains itself alone.

/// The report's suggestion `best` as trial `trial`.
wire::proposal proposal_from_suggestion(const wire::analysis_report& r,
                                        const wire::suggestion_wire& best, int trial);

/// A failed trial's configuration once more, as trial `trial`, for the
/// failure analyst's reason `d`.
wire::proposal retry_proposal(const wire::analysis_report& r, const wire::trial_result& failed,
                              const wire::failure_diagnosis& d, int trial);

/// An answer that launches nothing: no slot is free, nothing new and valid
/// remains (exhausted), or the session's answer is known (converged).
wire::proposal nothing_to_run(const wire::analysis_report& r);

/// Trial 1 as a skipped result when the analysis refused the job's initial
/// configuration before launch; none when it did not.
std::optional<wire::trial_result> skipped_initial(const wire::analysis_report& r);

} // namespace paratune
