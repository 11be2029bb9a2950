#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "messages/wire_types.hpp"
#include "report/decision_chain.hpp"
#include "report/session_summary.hpp"

namespace paratune {

/// What a dialogue about a session is grounded in: the session read back
/// (trials, best run), each trial's decision and diagnosis, the latest
/// analysis with its ranked and rejected candidates, and the dialogue's
/// own earlier turns.
struct session_facts {
  session_summary summary;
  std::vector<decision> chain;
  std::optional<wire::analysis_report> latest;  ///< the last analysis that ranked something
  std::vector<wire::analysis_report> analyses;  ///< every analysis that ranked something, in request order
  /// Each analysis request's trials (the proposals it launched), in trial
  /// order: "trial 1's analysis" is the one whose request launched trial 1.
  std::map<int, std::vector<int>> trials_of_request;
  std::vector<wire::dialogue_turn> turns;       ///< every thread, in pool order
  std::vector<trial_outcome> outcomes;          ///< the trials as the memory screen reads them
  /// A TPU session's experiment and runs so far (session_ledger's
  /// tpu_job and tpu_progress); none for a GPU session.
  std::optional<wire::tpu_session_opened> tpu_job;
  std::optional<wire::tpu_session_end> tpu_progress;

  /// Whether this is a TPU session (no GPU job, a TPU record).
  bool is_tpu() const { return summary.job.job_name.empty() && tpu_progress.has_value(); }

  /// The trial row numbered `n`, or nullptr.
  const trial_row* trial(int n) const;
  /// The decision of trial `n`, or nullptr.
  const decision* decision_of(int n) const;
  /// The highest-numbered trial that ran (a result other than skipped), or
  /// nullptr before one did.
  const trial_row* last_ran() const;
  /// The trials that ran trial `n` again (retry_of), in trial order.
  std::vector<const trial_row*> retries_of(int n) const;
  /// How a text names analysis `a`: "trial 1's analysis" (the first trial
  /// it launched), else "the analysis after trial 4" ("the first analysis"
  /// before any trial).
  std::string analysis_name(const wire::analysis_report& a) const;
  /// The turns of one thread, in order.
  std::vector<wire::dialogue_turn> thread(int number) const;
  /// The highest thread number so far, 0 for none.
  int last_thread() const;
};

session_facts facts_of(const std::string& session, const std::vector<wire::envelope>& history);

/// "tp=2 pp=1 mbs=4": a configuration's searched keys (all its keys when
/// the job searched none).
std::string searched_text(const wire::session_opened& job, const wire::config_map& c);

} // namespace paratune
