#include "decisions/proposal_forms.hpp"

#include <string>

namespace paratune {

wire::proposal proposal_from_suggestion(const wire::analysis_report& r,
                                        const wire::suggestion_wire& best, int trial) {
  wire::proposal p;
  p.trial = trial;
  p.request = r.request;
  p.health = r.health;
  p.reasoning = r.reasoning;
  for (const auto& x : r.ranked)
    p.ranked.push_back(x.text);
  p.config = best.config;
  p.change = best.text;
  p.group = best.group;
  p.why = best.why;
  p.predicted_tflops = best.predicted_tflops;
  p.predicted_peak_mib = best.predicted_peak_mib;
  return p;
}

wire::proposal retry_proposal(const wire::analysis_report& r, const wire::trial_result& failed,
                              const wire::failure_diagnosis& d, int trial) {
  wire::proposal p;
  p.trial = trial;
  p.request = r.request;
  p.retry_of = failed.trial;
  p.health = r.health;
  p.config = failed.config;
  p.group = candidate_group::retry;
  p.change = "Run trial " + std::to_string(failed.trial) + " again.";
  p.why = "trial " + std::to_string(failed.trial) + " failed on pool '" + failed.pool
          + "' for a reason that says nothing about its configuration: " + d.summary;
  p.reasoning = p.why;
  return p;
}

wire::proposal nothing_to_run(const wire::analysis_report& r) {
  wire::proposal p;
  p.request = r.request;
  p.exhausted = r.ranked.empty();
  p.converged = r.converged;
  if (r.converged)
    p.stop_reason = r.stop_reason;
  p.health = r.health;
  p.reasoning = r.reasoning;
  return p;
}

std::optional<wire::trial_result> skipped_initial(const wire::analysis_report& r) {
  for (const auto& s : r.rejected)
    if (s.group == candidate_group::initial) {
      wire::trial_result t;
      t.trial = 1;
      t.config = s.config;
      t.status = trial_status::skipped;
      t.reason = "not launched: " + s.rejected;
      return t;
    }
  return std::nullopt;
}

} // namespace paratune
