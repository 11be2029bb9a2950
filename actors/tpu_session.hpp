#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "actors/agent.hpp"
#include "adapters/diagnosis/tpu_tuning_loader.hpp"
#include "core/diagnosis/experiment_spec.hpp"
#include "core/diagnosis/next_mesh_trial.hpp"
#include "core/early_stop_policy.hpp"
#include "core/reasoner_settings.hpp"
#include "core/session_state.hpp"
#include "core/tpu/tpu_mesh.hpp"
#include "messages/wire_types.hpp"

namespace paratune {

class bus_bridge;
struct tpu_run_in_flight; // defined in tpu_session.cpp

/// What one TPU session runs: an experiment, each trial a MaxText training
/// run (MaxText's overrides for its mesh) on the session's pools.
struct tpu_session_options {
  std::string id;               ///< the session; trial n's records are session "<id>.t<n>"
  std::string experiment_file;
  std::string experiment_yaml;  ///< the file's text, sent with every trial's mesh in place
  experiment_spec experiment;
  int budget = 8;               ///< runs at most, retries included
  std::uint64_t seed = 1;       ///< the simulated cluster's hidden truth (simulated pools)
  std::string simulator;        ///< the paratune-tpu-sim executable (simulated pools)
  /// Under it each run gets t<n>/: MaxText's base_output_directory is this
  /// folder (a pool's `workdir:`/<id> instead, when it names one), the
  /// run_name t<n>, so its profile lands in t<n>/tensorboard/plugins/profile/.
  std::string runs_dir;
  int steps = 6;                ///< MaxText's `steps` per run; step 0 is compilation
  double time_scale = 0;        ///< simulated pools: wall seconds per simulated second
  double failure_rate = 0;      ///< simulated pools: chance a run loses a host
  /// Where runs go (local, slurm or simulated pools, core/pool_spec.hpp);
  /// empty: one simulated pool, one run at a time.
  std::vector<wire::pool_wire> pools;
  /// Ends a run that cannot beat the best one, a hung one, one past its
  /// wall clock; none: every run goes to its end.
  std::optional<early_stop_policy> early_stop;
  /// The experiment's `env:`, set in every run's environment, and its
  /// `secret_env:`: names no run sees and whose values are redacted from
  /// its output (always_secret_env() besides).
  std::map<std::string, std::string> env;
  std::vector<std::string> secret_env;
  /// A run that failed for a transient reason (a host lost: the barrier
  /// timed out; the scheduler lost the job) runs again once, on another
  /// pool when one is free.
  int max_runs_per_mesh = 2;
  /// How long one step of a run (the run, its diagnosis with proposals) may
  /// take before the session fails.
  std::chrono::seconds step_timeout{120};
  /// The model behind each run's Analyzer and Proposal agent (builtin:
  /// none), with the prompt templates they ask it with.
  wire::reasoner_wire reasoner;
  std::string analyzer_prompt;
  std::string proposal_prompt;
  /// The session's records are in the pool already (a daemon that
  /// restarted): its ended runs count, a run that never ended is recorded
  /// as interrupted and run again, and the loop goes on from there.
  bool resume = false;
  /// A daemon's session: when the daemon stops (SIGTERM), a run on a Slurm
  /// pool goes on as a batch job, and the next daemon attaches to it (its
  /// trial_job record names the job). Otherwise (tune) the job is cancelled.
  bool keep_jobs = false;
};

/// Takes what an experiment file says about tuning it (its pools, steps,
/// early stop, simulation and model; tpu_tuning_loader.hpp); `trials` > 0
/// replaces its budget. Throws input_error as set_diagnosis_reasoner does.
void apply_tuning(tpu_session_options& o, const tpu_tuning_settings& tuning, int trials);

/// Sets the model behind the session's Analyzer and Proposal agent, with
/// the prompt templates as they are now (configs/prompts). Throws
/// input_error when the model's address or key cannot work.
void set_diagnosis_reasoner(tpu_session_options& o, const reasoner_settings& reasoner);

/// The record a TPU session is opened with (stored before it starts).
wire::tpu_session_opened opened_record(const tpu_session_options& o);

/// The options a stored session runs under again. Throws input_error when
/// its experiment no longer reads.
tpu_session_options options_of(const std::string& id, const wire::tpu_session_opened& r);

/// One run of the loop, as the report shows it.
struct tpu_trial {
  int index = 0;
  tpu_mesh mesh;
  double step_ms = 0;           ///< 0 when the run failed
  std::string error;            ///< why the run failed (out of memory, a mesh MaxText refuses)
  std::string bottleneck;
  std::string next;             ///< the proposal chosen after it
  std::string pool;             ///< where it ran
  std::string stopped;          ///< why it was ended early; empty: it ran to its end
  int retry_of = 0;             ///< the failed run it repeats
  int64_t started_ms = 0;       ///< wall clock, ms since the epoch
  int64_t ended_ms = 0;         ///< when it ended, diagnosis included
  bool launch_failed = false;   ///< it never reached its trainer (exit 125-127, nothing read)
  bool transient = false;       ///< it failed for a reason a run again may not meet
  double mfu = 0;               ///< its measured step's MFU; 0: none measured
  double chip_hours = 0;        ///< its logged steps' times x the slice's chips
};

/// The topic prefixes a TPU session listens to: its trials' diagnoses and
/// proposal sets.
std::vector<std::string> tpu_session_topics(const std::string& id);

/// The coordinator of ASAP's loop on a TPU slice. Each run is MaxText's
/// command line for one mesh (core/tpu/maxtext_args.hpp, checked against
/// MaxText's rule table: a mesh MaxText refuses is a failed trial, never a
/// launch): paratune-tpu-sim's trainer on a simulated pool, the pool's
/// launch template with {maxtext_args} on a local pool (fork and exec,
/// never a shell) or a Slurm pool (a batch job). Up to the pools' capacity
/// run at once (core/pool_placement.hpp). Each run's output is read as
/// MaxText's log: a run that cannot beat the best one is ended
/// (core/tuning/early_stop.hpp), a failed run's error is MaxText's or XLA's
/// line, and a transient failure runs again on another pool. A measured run
/// is diagnosed (a diagnose_request for its folder, the Analyzer's
/// diagnosis and the Proposal agent's proposal_set as session <id>.t<n>),
/// an improvement joins the optimization ledger, and each free slot takes
/// the next mesh not yet run (next_mesh_trial()).
///
/// When the budget is spent or no mesh is left it stores the session's end
/// (a tpu_session_end record under the session's id: every run and the
/// best) and then tells `listener` (done_atom, id, finished or exhausted,
/// ""). It fails, telling (done_atom, id, failed, reason) and ending with
/// that reason, when a trainer cannot be started or prints no MaxText line,
/// a diagnosis carries an error, the pool refuses a write or a read, a step
/// outlasts the step timeout, or an agent it needs died.
struct tpu_session_state : basic_agent_state<tpu_session_actor> {
  explicit tpu_session_state(tpu_session_actor::pointer self);
  ~tpu_session_state() override;

  void open(tpu_session_options options, session_listener_actor listener);
  /// A client cancelled the session: its runs are ended, its end stored.
  void cancel(const std::string& why);
  void on_line(const std::string& key, const std::string& line);
  void on_exit(const std::string& key, int exit_code);
  /// Slurm accepted the batch job of the run `key`: its trial_job record
  /// (job id, output file) is stored, for a daemon that restarts to attach.
  void on_submitted(const std::string& key, int64_t job_id, const std::string& output_file);
  /// Reads the diagnosing runs' records from the pool: what the bus lost.
  void replay();
  /// A step's timer went off; `token` tells which step of which run armed it.
  void on_timeout(int token);
  void fail(const std::string& reason);

  tpu_session_options opts;
  session_listener_actor listener;
  std::vector<tpu_trial> trials;  ///< runs that ended, in the order they ended
  bool ending = false;
  static inline const char* name = "tpu_session";

private:
  using run_ptr = std::unique_ptr<tpu_run_in_flight>;

  /// Starts as many runs as free slots, budget and untried meshes allow;
  /// ends the session when none runs and none can start.
  void fill();
  /// The next mesh not yet run, or none.
  std::optional<mesh_step> next_mesh() const;
  void start_run(const tpu_mesh& mesh, int retry_of, const std::string& avoid_pool);
  /// A run of `trial` on `pool`, entered as running; not launched yet.
  tpu_run_in_flight& enter_run(const tpu_trial& trial, const wire::pool_wire& pool);
  void launch(tpu_run_in_flight& run, const wire::pool_wire& pool);
  /// The early stopper of a run, when the session has one.
  void arm_stopper(tpu_run_in_flight& run);
  /// Follows again the Slurm jobs a stopped daemon left running (to_attach_);
  /// a job that cannot be followed makes its run interrupted and run again.
  void attach_runs();
  /// The Slurm pool named `name`, or null (gone from the pools, or not Slurm).
  const wire::pool_wire* slurm_pool_named(const std::string& name) const;
  std::vector<std::string> maxtext_overrides(const tpu_run_in_flight& run) const;
  void arm_timer(tpu_run_in_flight& run);
  /// How long the run's current step may take: the step timeout, and the
  /// model's time on top while a model answers its diagnosis.
  std::chrono::seconds step_limit(const tpu_run_in_flight& run) const;
  /// Ends a run that can no longer matter; its exit concludes it.
  void end_early(tpu_run_in_flight& run, const std::string& why);
  /// The early stopper's hang and wall-clock limits (a tick of its clock).
  void check_clocks();
  tpu_run_in_flight* find(const std::string& key);
  tpu_run_in_flight* find_diagnosing(const std::string& trial_session);
  void ran(tpu_run_in_flight& run, int exit_code);
  void request_diagnosis(tpu_run_in_flight& run);
  void maybe_diagnosed(tpu_run_in_flight& run);
  void conclude(int index, wire::proposal_set set);
  void record_improvement(int before, int now);
  void read_back(const std::string& trial_session, std::function<void()> after);
  void finish(session_state end, const std::string& text = {});
  /// Reads the session's own records back and goes on from them.
  void resume();
  /// Takes the stored runs; returns the diagnosed ones, whose proposals
  /// and diagnoses are read next.
  std::vector<int> take_stored_runs(const std::vector<wire::envelope>& records);
  /// Reads the proposals and diagnosis of diagnosed[i..], then fills.
  void recover_diagnoses(std::vector<int> diagnosed, size_t i);
  /// Stores a run's row under the session's id (at its start and its end).
  void store_row(const tpu_trial& t);
  /// The fastest complete run among trials[0, end) (ledger/tpu_runs.hpp),
  /// as an index into trials; -1: none.
  int best_ended_before(int end) const;
  int best() const;
  /// Runs `body`, failing the session with what it throws.
  void attempt(const std::function<void()>& body);

  std::vector<wire::pool_wire> pools_;     ///< opts.pools, or the one simulated pool
  /// A failed run to run again, before any new mesh.
  struct retry {
    tpu_mesh mesh;
    int retry_of = 0;
    std::string pool;  ///< where it failed: another pool is preferred
  };

  std::map<int, run_ptr> running_;         ///< by trial index
  /// Stored runs that never ended whose Slurm job may still run (resume).
  std::vector<std::pair<tpu_trial, wire::trial_job>> to_attach_;
  std::deque<retry> retries_;
  bool filling_ = false;                   ///< fill() is on the stack
  int started_ = 0;                        ///< runs started (the last index)
  int tokens_ = 0;                         ///< timer tokens handed out
  std::map<int, int> timers_;              ///< token -> trial index, the live ones
  std::map<int, wire::proposal_set> sets_; ///< per diagnosed trial index
  wire::proposal_set last_set_;            ///< the latest non-empty one
  std::vector<tpu_mesh> tried_;            ///< meshes started
  std::vector<mesh_step> planned_;         ///< the planner's fastest meshes, ranked again
                                           ///< under fits_ after each diagnosed run
  std::vector<mesh_calibration> fits_;     ///< what each diagnosed run said of the model
};

tpu_session_actor::behavior_type
tpu_session(tpu_session_actor::stateful_pointer<tpu_session_state> self, agent_deps deps,
            bus_bridge* bridge, tpu_session_options options, session_listener_actor listener);

} // namespace paratune
