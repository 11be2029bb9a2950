#pragma once

// The session ledger: the one fold of a session's records.
//
// A session's records (messages/wire_types.hpp) arrive in the pool in
// sequence order. Every reader that needs to know where the session stands
// (the agents, `tune`, `watch`, `report`, `ask`, `export`, the daemon's
// list and the dashboard) applies them to a session_ledger and asks it,
// instead of walking the records itself. Applying is incremental: a reader
// that holds a ledger reads only what the pool gained after last_seq() and
// applies that, so no agent reads a whole session more than once.
//
// The ledger keeps the wire bodies as they were stored; conversions to
// core's types (outcomes(), pending()) happen when asked and throw
// paratune::input_error for a stored value that does not parse, as
// messages/conversions does.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ledger/model_usage.hpp"
#include "core/trial_outcome.hpp"
#include "messages/wire_types.hpp"

namespace paratune {

/// One trial as the session's records tell it.
struct ledger_trial {
  int number = 0;
  std::optional<wire::proposal> proposal; ///< the proposal that asked for it
  uint64_t proposal_seq = 0;              ///< where the pool holds that proposal
  /// Its current run, once the validator started it; a trial_interrupted
  /// record ends that run (a daemon that restarts may start another).
  std::optional<wire::envelope> started;
  std::optional<wire::trial_job> job; ///< where its current run is (a Slurm job, a process)
  std::optional<wire::trial_result> result;
  std::optional<wire::failure_diagnosis> diagnosis;
  uint64_t result_seq = 0;                ///< where the pool holds the result

  bool ended() const { return result.has_value(); }
  /// Proposed and not ended: running, queued in its pool, or about to start.
  bool in_flight() const { return proposal.has_value() && !result; }
  /// Ended in failure, and no diagnosis is stored yet.
  bool awaiting_diagnosis() const {
    return result && result->status == trial_status::failed && !diagnosis;
  }
};

/// How a pool's trials have gone, in record order.
struct ledger_pool {
  int last_trial = 0;                          ///< the highest trial that ended on it
  failure_kind last_end = failure_kind::none;  ///< how that trial ended (none: it ran)
  int launch_failures = 0;      ///< its trials that never reached training, in a row
  std::string last_launch_error; ///< the last of those trials' message (the scheduler's words)
};

/// The best measured run so far: what a new trial must beat.
struct ledger_incumbent {
  int trial = 0;
  double tflops_per_gpu = 0;
  double iteration_ms = 0;
  bool known() const { return trial > 0; }
};

class session_ledger {
public:
  session_ledger() = default;
  explicit session_ledger(std::string session) : session_(std::move(session)) {}

  /// Applies one record. A stored record (seq > 0) at or below last_seq()
  /// was applied already and is skipped, so replaying from any sequence
  /// number, or reading the same records twice, changes nothing. Records
  /// built in memory (seq 0) are applied in the order given. Records of
  /// another session, and types the ledger does not track, are skipped.
  void apply(const wire::envelope& e);
  void apply(const std::vector<wire::envelope>& records);

  /// Applies records read from the pool after last_seq(): the ledger is
  /// then as current as the pool was when read, and a gap seen on the bus
  /// is filled.
  void apply_read(const std::vector<wire::envelope>& records);
  /// Applies `e`, a record as the pool published it when it stored it
  /// (topics::record), if it comes right after what the ledger holds:
  /// e.prev_seq == last_seq(). A ledger follows only once it has been read
  /// from the pool (last_seq() > 0): the job and the start of the chain come
  /// from the pool, never from the bus. A record out of chain (one before
  /// it was lost on the bus) is not applied, nor is any after it, until a
  /// read of the pool fills the gap. Whether the ledger now holds `e`.
  bool follow(const wire::envelope& e);
  /// Whether the ledger holds every record of its session up to `seq`
  /// and keeps up with the bus: read from the pool, fed by follow() since,
  /// and no gap seen since the last read. A reader woken by the message
  /// stored at `seq` then decides without reading the pool. A ledger that
  /// nothing feeds is never current: its reader reads.
  bool holds(uint64_t seq) const {
    return following_ && !behind_ && last_seq_ > 0 && last_seq_ >= seq;
  }

  /// The highest sequence number applied; read the pool after it.
  uint64_t last_seq() const { return last_seq_; }
  /// Records applied (repeats skipped).
  uint64_t applied() const { return applied_; }
  const std::string& session() const { return session_; }
  /// The first record whose body did not decode, in words ("record 41: cannot
  /// decode trial_result: ..."); empty when every record read. Such a record
  /// is skipped, and a reader that needs the whole story (the analyst) says so.
  const std::string& unreadable() const { return unreadable_; }

  /// The job, once its session_opened record is applied.
  const wire::session_opened* job() const { return job_ ? &*job_ : nullptr; }
  /// What the trial runner runs the session's trials under: the job, or a
  /// TPU session's as tpu_runner_job() puts it; null before either is applied.
  const wire::session_opened* runner_job() const {
    return job_ ? &*job_ : tpu_runner_ ? &*tpu_runner_ : nullptr;
  }
  /// When the job's session_opened record was written (ms since the epoch).
  int64_t opened_ms() const { return opened_ms_; }

  // -- requests and answers ---------------------------------------------------

  /// The highest analysis request number stored (0: none yet).
  int latest_request() const { return latest_request_; }
  /// The last request itself (after_trial, slots), if any.
  const std::optional<wire::analysis_request>& last_request() const { return last_request_; }
  /// Whether the latest request has its answer: a proposal naming it, or
  /// the result of a trial no proposal asked for (the generator refused it
  /// before launch). True while no request was made.
  bool latest_answered() const { return answered_request_ >= latest_request_; }
  /// What the answers to the latest request said of the session's end: the
  /// results there were when one said nothing new is left (-1: none said
  /// it), why no pool is left, why the session converged (empty: not said).
  int exhausted_after() const { return exhausted_after_; }
  const std::string& no_pool() const { return no_pool_; }
  const std::string& converged() const { return converged_; }
  /// The stored report that answers request `number`, or nullptr.
  const wire::envelope* report_for(int number) const;
  /// The stored proposals that answer request `number`, in record order.
  std::vector<wire::envelope> proposals_for(int number) const;
  /// The stored proposal at `seq`, while the session has not ended: what
  /// the validator runs (the bus only says that one exists).
  std::optional<wire::proposal> proposal_at(uint64_t seq) const;

  // -- trials -------------------------------------------------------------------

  const std::map<int, ledger_trial>& trials() const { return trials_; }
  const ledger_trial* trial(int number) const;
  /// One past the highest trial number in use.
  int next_trial() const { return next_trial_; }
  /// Trials that count against the budget: proposed or run, except those
  /// refused before launch (skipped).
  int trials_used() const { return int(used_.size()); }
  /// Trials with a result.
  int results() const { return results_; }
  /// Proposed trials with no result, by number.
  std::vector<const ledger_trial*> in_flight() const;
  /// Failed trials already proposed again (retry_of).
  const std::set<int>& retried() const { return retried_; }
  /// By pool name.
  const std::map<std::string, ledger_pool>& pools() const { return pools_; }
  const ledger_incumbent& incumbent() const { return incumbent_; }

  /// The trials as the reasoner sees them, in trial order: each result with
  /// its diagnosis folded in. Throws input_error for a configuration that
  /// does not parse.
  std::vector<trial_outcome> outcomes() const;
  /// The trials proposed and not ended, in trial order.
  std::vector<pending_trial> pending() const;

  /// The last analysis that ranked something, none before one did.
  std::optional<wire::analysis_report> latest_ranked_report() const;
  /// The `ask` dialogue's turns, every thread, in pool order.
  const std::vector<wire::dialogue_turn>& dialogue() const { return dialogue_; }
  /// The language model's asks and their outcomes (llm_exchange records).
  const model_usage& llm_usage() const { return llm_usage_; }

  // -- a TPU session (actors/tpu_session.hpp) ---------------------------------

  /// Its first record, once applied.
  const wire::tpu_session_opened* tpu_job() const { return tpu_job_ ? &*tpu_job_ : nullptr; }
  /// Each run by trial index, as last stored: ended_ms 0 while it runs
  /// (or when the daemon that ran it stopped first).
  const std::map<int, wire::tpu_trial_row>& tpu_runs() const { return tpu_runs_; }
  /// The fastest measured run that was not ended early; 0: none.
  int tpu_best_run() const;
  /// The TPU session as it stands, in the shape of its end record: every
  /// run stored so far in trial order, the fastest, and the state (running
  /// until the end is stored; then the end's state, best run and text).
  /// None when the records hold no TPU session.
  std::optional<wire::tpu_session_end> tpu_progress() const;

  // -- the session's end --------------------------------------------------------

  /// The final session_status, once stored (a TPU session's end as one too).
  const std::optional<wire::session_status>& end() const { return end_; }
  bool ended() const { return end_.has_value(); }

private:
  void apply_body(const wire::envelope& e);
  void on_request(const wire::analysis_request& r);
  void on_proposal(const wire::envelope& e);
  void on_result(const wire::trial_result& r, uint64_t seq);
  ledger_trial& trial_entry(int number);

  std::string session_;
  uint64_t last_seq_ = 0;
  bool following_ = false; ///< follow() has been handed a record
  bool behind_ = false;    ///< follow() saw a gap that no read has filled yet
  uint64_t applied_ = 0;
  std::string unreadable_;
  std::optional<wire::session_opened> job_;
  int64_t opened_ms_ = 0;
  int latest_request_ = 0;
  std::optional<wire::analysis_request> last_request_;
  int answered_request_ = 0;
  int exhausted_after_ = -1;
  std::string no_pool_;
  std::string converged_;
  std::map<int, wire::envelope> reports_;                 ///< by request number
  std::map<int, std::vector<wire::envelope>> proposals_;  ///< by request number
  std::map<uint64_t, int> proposal_seqs_;                 ///< stored proposal -> trial
  std::map<int, ledger_trial> trials_;
  int next_trial_ = 1;
  int results_ = 0;
  std::set<int> used_;
  std::set<int> retried_;
  std::map<std::string, ledger_pool> pools_;
  ledger_incumbent incumbent_;
  std::optional<wire::session_status> end_;
  std::optional<wire::tpu_session_opened> tpu_job_;
  std::optional<wire::session_opened> tpu_runner_; ///< tpu_runner_job(*tpu_job_)
  std::map<int, wire::tpu_trial_row> tpu_runs_;
  std::string tpu_job_mesh_; ///< from tpu_session_opened or the end record; "" in older ones
  bool tpu_session_ = false; ///< a TPU record was applied
  model_usage llm_usage_;
  std::vector<wire::dialogue_turn> dialogue_;
};

} // namespace paratune
