#pragma once

#include <algorithm>

#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/best_choice.hpp"
#include "core/full_run_cost.hpp"
#include "core/session_state.hpp"
#include "core/trial_environment.hpp"
#include "core/trial_outcome.hpp"
#include "ledger/session_ledger.hpp"
#include "messages/wire_types.hpp"
#include "report/model_usage.hpp"

namespace paratune {

/// One trial of a finished session, as the user reads it.
struct trial_row {
  int index = 0;
  wire::config_map config;
  std::string change;     ///< what changed, e.g. "Change AC from full to none."
  trial_status status = trial_status::failed;
  double mfu = 0;
  double tflops_per_gpu = 0;
  double peak_memory_mib = 0;
  std::string reason;     ///< why it was chosen, or why it failed / was skipped / was stopped
  stop_reason stop = stop_reason::none;  ///< why the early stopper ended it
  int64_t started_at_ms = 0;             ///< Unix time, ms; 0 when it never started
  int64_t ended_at_ms = 0;
  int iterations_scored = 0;
  double gpu_hours = 0;
  std::string pool;
  double iteration_ms = 0; ///< its scored iterations' mean time
  int64_t queued_ms = 0;   ///< held by its pool's scheduler before it ran
  int retry_of = 0;        ///< the failed trial it ran again
  failure_kind failure = failure_kind::none; ///< how a failed trial failed
  wire::relay_counts_wire relay;  ///< a relay pool's trial: how its lines arrived
  double predicted_tflops = 0;     ///< the proposal's prediction; 0 when it made none
  double memory_limit_mib = 0;     ///< the device memory the run had; 0 when not reported
  /// An exploration: its proposal predicted less than the best throughput
  /// measured before it (`incumbent_tflops`, by trial `incumbent`).
  bool exploration = false;
  double incumbent_tflops = 0;
  int incumbent = 0;

  /// Its throughput was measured (to the end, or until stopped early).
  bool measured() const {
    return status == trial_status::succeeded
           || (status == trial_status::stopped && tflops_per_gpu > 0);
  }
};

/// The row of one trial result, with the proposal's change and reasoning
/// when `proposal` is given (a skipped initial run has none).
trial_row row_of(const wire::trial_result& r, const wire::proposal* proposal);

/// A session read back from the pool.
struct session_summary {
  std::string session;
  session_state state = session_state::running; ///< running when it did not end
  /// Why it ended, as its session_status says ("trial budget spent", the
  /// stop decision of a converged session); empty while it runs.
  std::string end_text;
  wire::session_opened job;
  std::vector<trial_row> trials;
  /// The answer's trial, by core/best_choice's rule: the highest
  /// measurement, or among trials within noise of it the one with the
  /// most memory headroom, then the simpler configuration.
  std::optional<trial_row> best;
  std::optional<trial_row> first_success;
  model_usage model;  ///< the language model's part (mode builtin: none)
  best_choice choice;    ///< how `best` was chosen: the trials tied with it, and why
  std::string tie_text;  ///< tie_sentence(): empty when no trial measured within noise of it
};

/// The measured trials as core/best_choice reads them.
std::vector<measured_option> measured_options(const session_summary& s);
/// Sets `best`, `choice` and `tie_text` from `s.trials` by core/best_choice's
/// rule (summarize does; a summary built by hand calls it after its trials).
void choose_best_of(session_summary& s);

/// What the best configuration is worth over the job's whole token budget
/// (`tokens:`), against the first measured configuration, and what tuning
/// spent; none without a budget or a measured run.
struct full_run_value {
  full_run_cost best, first;
  double tuning_gpu_hours = 0;
};
std::optional<full_run_value> full_run_of(const session_summary& s);
/// The same as JSON (`tokens`, `best` and `first` {iterations, days,
/// gpu_hours}, `gpu_hours_saved`, `tuning_gpu_hours`, and `baseline` when
/// the job named one: report/baseline_value.hpp), or null.
nlohmann::json full_run_json(const session_summary& s);

/// The summary of a session's ledger, its language model's part included.
session_summary summarize(const session_ledger& ledger);
/// The same from the session's records; throws wire::decode_error for a
/// record that does not decode.
session_summary summarize(const std::string& session, const std::vector<wire::envelope>& history);

/// The trainer's arguments for a configuration of the session's job, as
/// its framework renders them (frameworks/framework.hpp); none when the
/// records name a framework this paratune does not have.
/// The key a framework's own placeholder names ("megatron_args",
/// "maxtext_args"): JSON carries the trainer arguments under it too, as
/// scripts read them before `trainer_args` existed. Empty for a framework
/// whose only placeholder is {framework_args}, or one this paratune lacks.
std::string own_args_key(const std::string& framework);
std::vector<std::string> trainer_args_of(const session_summary& s, const wire::config_map& c);
/// trainer_args_of() as a production run takes them: without the flags only
/// the tuning run needs (framework.hpp's measuring_flags).
std::vector<std::string> production_args_of(const session_summary& s, const wire::config_map& c);
/// The variables the session's framework needs for configuration `c`
/// (none for a framework this paratune does not have).
env_list framework_env_of(const session_summary& s, const wire::config_map& c);
/// The session's framework as people name it ("Megatron-LM"), or its
/// records' name for one this paratune does not have.
std::string framework_title_of(const session_summary& s);

/// A Unix time in ms as UTC ISO-8601 with milliseconds
/// ("2026-11-25T11:50:15.123Z"), or null for 0 (a trial that never started).
nlohmann::json utc_json(int64_t unix_ms);
/// Whether the job answers its trials from a replay pool's table.
bool has_replay_pool(const wire::session_opened& job);
/// Trials a replay pool refused as unavailable (configurations its table did
/// not measure): skipped, no budget spent. `--json` shows it as
/// refused_unavailable for a replay job.
int refused_unavailable(const session_summary& s);

/// The `--json` document.
nlohmann::json to_json(const session_summary& s);

/// The human-readable report printed after the live lines.
std::string render_text(const session_summary& s);

/// How a session's trials stand against its budget, the same in every view
/// (spends_budget): tune's header and end, the live lines, `sessions` and
/// `list`, the report and the dashboard count the trials run, out of the
/// budget; a skipped trial takes a number and is named as skipped. Before,
/// a skipped trial 1 made the lines count to 7, the header say 6 and the
/// report "Trials run 7" for a budget of 6.
struct trial_count {
  int budget = 0;
  std::set<int> skipped;  ///< the skipped trials seen so far, by number

  /// Counts a result before its line is rendered.
  void saw(int trial, trial_status s) {
    if (!spends_budget(s))
      skipped.insert(trial);
  }
  /// Trial `index`'s place among the trials run: its number less the
  /// skipped trials numbered before it.
  int run_number(int index) const;
  /// The start of a live line: "trial  2/6" (the trial's number is its
  /// place among the trials run), "trial  3 (run 2/6)" after a skip,
  /// "trial  1 (no budget)" for a skipped one.
  std::string label(int index, trial_status status = trial_status::succeeded) const;
};

/// The trials of `s` that were run (spends_budget), and those skipped.
int trials_run(const session_summary& s);
int trials_skipped(const session_summary& s);

/// The count a ledger gives: the job's budget (`budget` until the job is
/// applied) and the trials it holds as skipped.
trial_count trial_count_of(const session_ledger& ledger, int budget);

/// One live line for a finished trial, starting with count.label().
std::string render_trial_line(const trial_row& r, const trial_count& count);

} // namespace paratune
