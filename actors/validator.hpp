#pragma once

#include <functional>
#include <map>
#include <optional>
#include <memory>
#include <set>
#include <string>

#include <caf/fwd.hpp>

#include "actors/agent.hpp"
#include "adapters/process/trial_process.hpp"
#include "adapters/relay/relay_auth.hpp"
#include "core/tuning/early_stop.hpp"

namespace paratune {

struct running_trial; // defined in validator.cpp

struct validator_options {
  /// On exit, leave Slurm jobs running (a daemon that stops; the next one
  /// attaches to them) instead of cancelling them (`paratune tune`).
  bool keep_jobs = false;
  /// The secret a relayed trial's key derives from (adapters/relay/relay_auth.hpp):
  /// each trial's paratune-relay gets its own key in its environment, and the
  /// relay ingress that holds the same master passes only lines signed with
  /// it. None: relays run unsigned, and an ingress refuses their lines (the
  /// receiver then reads the relay's log file at the trial's end).
  std::optional<relay_key> relay_master = std::nullopt;
};

/// The Strategy Validation agent. Subscribes to "proposal."; for each new
/// proposal it records trial_started, launches the run as a child process
/// (fork and exec of the proposal's argv), parses its output line by line
/// with the Megatron log parser, publishes each iteration on
/// "telemetry.<session>.<trial>", and when the process ends scores the
/// trial (warm-up skipped) and records its trial_result. With the job's
/// early_stop policy it ends a trial as soon as its answer is known (stable,
/// cannot beat the best run so far, a failure line, a hang, its wall-clock
/// limit) and records it as stopped, or failed, with the reason.
struct validator_state : basic_agent_state<validator_actor> {
  explicit validator_state(validator_actor::pointer self);
  ~validator_state() override;

  /// Launches `p` unless it already ran (a republished proposal).
  void consider(const std::string& session, const wire::proposal& p,
                const session_ledger& ledger);
  void launch(const std::string& session, const wire::proposal& p,
              const wire::session_opened& opened, incumbent_rate incumbent);
  /// Takes up a trial a validator that is gone started on Slurm: follows
  /// the job's output from its first line and records its end.
  void attach(const std::string& session, const wire::proposal& p,
              const wire::session_opened& opened, const wire::trial_job& job,
              int64_t started_at_ms, incumbent_rate incumbent);
  /// A replay pool's trial: its result is the table's (replay_answer), and
  /// nothing is launched.
  void answer_from_table(const std::string& session, const wire::proposal& p,
                         const wire::session_opened& job, const wire::pool_wire& pool,
                         bool started);
  /// A running trial's bookkeeping (parser, early stopper, clocks).
  std::shared_ptr<running_trial> track(const std::string& session, const wire::proposal& p,
                                       const wire::session_opened& opened,
                                       incumbent_rate incumbent);
  /// Stores where a trial runs (trial_job): its process or its Slurm job.
  void record_job(const std::string& session, int trial, wire::trial_job job);
  /// Slurm runs the trial on `nodes` (its compressed list): the job record
  /// again, with the hosts, stored and published for the telemetry agent.
  void on_placed(const std::string& key, const std::string& nodes);
  /// What a Slurm watch's thread calls when the job runs: a placed_atom to
  /// this actor.
  std::function<void(const std::string& nodes)> placed_handler(const std::string& key);
  void on_line(const std::string& key, const std::string& line);
  void on_exit(const std::string& key, int exit_code);
  /// A trial of `session` measured `measured`: its other running trials
  /// now race it when it beats what they race (fan-out).
  void race_new_best(const std::string& session, incumbent_rate measured);
  /// Publishes the trial's gathered output lines on "output.<sid>.<n>".
  void publish_output(running_trial& t);
  /// Ends a trial before its command finishes (core/tuning/early_stop.hpp):
  /// signals its process, whose exit then records the result as stopped.
  void end_early(const std::string& key, stop_decision d);
  /// Ends a session's running trials (it was cancelled); each records its
  /// result as it exits.
  void stop_session(const std::string& session, const std::string& why);
  /// The hang and wall-clock limits of running trials (a timer's tick).
  void check_clocks();
  /// Submits a trial to a Slurm pool; its output file's lines and its end
  /// come back as a child process's do.
  std::unique_ptr<trial_process> launch_slurm_job(const wire::pool_wire& pool,
                                                  const wire::session_opened& s,
                                                  const wire::proposal& p, const std::string& key);
  std::unique_ptr<trial_process> attach_slurm_job(const wire::pool_wire& pool,
                                                  const wire::session_opened& s,
                                                  const wire::proposal& p,
                                                  const wire::trial_job& job,
                                                  const std::string& key);

  /// Trials now running, by "<session>/<trial>".
  std::map<std::string, std::shared_ptr<running_trial>> running;
  bool clock_running = false; ///< a tick is scheduled
  bool keep_jobs = false;     ///< validator_options::keep_jobs
  std::optional<relay_key> relay_master;  ///< validator_options::relay_master
  std::set<std::string> resuming; ///< interrupted trials whose note is being stored
  static inline const char* name = "validator";
};

validator_actor::behavior_type validator(validator_actor::stateful_pointer<validator_state> self,
                                         agent_deps deps, validator_options opts = {});

} // namespace paratune
