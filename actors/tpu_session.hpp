#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "actors/agent.hpp"
#include "core/diagnosis/experiment_spec.hpp"
#include "core/diagnosis/next_mesh_trial.hpp"
#include "core/session_state.hpp"
#include "core/tpu/tpu_mesh.hpp"
#include "messages/wire_types.hpp"

namespace paratune {

class bus_bridge;
class child_process;
class maxtext_log_parser;

/// What one TPU session runs: an experiment, each trial a MaxText training
/// run on paratune-tpu-sim (`train`, MaxText's overrides).
struct tpu_session_options {
  std::string id;               ///< the session; trial n's records are session "<id>.t<n>"
  std::string experiment_file;
  std::string experiment_yaml;  ///< the file's text, sent with every trial's mesh in place
  experiment_spec experiment;
  int budget = 8;               ///< trials at most
  std::uint64_t seed = 1;       ///< the simulated cluster's hidden truth
  std::string simulator;        ///< the paratune-tpu-sim executable
  /// MaxText's base_output_directory: trial n is run_name t<n>, its profile
  /// under <runs_dir>/t<n>/tensorboard/plugins/profile/<time>/.
  std::string runs_dir;
  int steps = 6;                ///< MaxText's `steps` per trial; step 0 is compilation
  double time_scale = 0;        ///< the simulator's wall seconds per simulated second
  /// How long one step (a run, a diagnosis with its proposals, a ledger
  /// write) may take before the session fails.
  std::chrono::seconds step_timeout{120};
};

/// One run of the loop, as the report shows it.
struct tpu_trial {
  int index = 0;
  tpu_mesh mesh;
  double step_ms = 0;           ///< 0 when the run failed
  std::string error;            ///< why the run failed (out of memory, a mesh the job cannot use)
  std::string bottleneck;
  std::string next;             ///< the proposal chosen after it
};

/// Where the TPU coordinator stands in its current trial.
enum class tpu_phase {
  simulating, ///< paratune-tpu-sim runs the trial's mesh
  diagnosing, ///< the diagnose_request is out; its diagnosis and proposal_set are awaited
  recording,  ///< an improvement is being written to the optimization ledger
  ending,     ///< the listener has been told
};

/// The topic prefixes a TPU session listens to: its trials' diagnoses and
/// proposal sets.
std::vector<std::string> tpu_session_topics(const std::string& id);

/// The coordinator of ASAP's loop on a simulated TPU slice: runs each
/// trial's mesh as MaxText's overrides (core/tpu/maxtext_args.hpp, checked
/// against MaxText's rule table: a mesh MaxText refuses is a failed trial,
/// never a launch) on paratune-tpu-sim's trainer (fork and exec, never a
/// shell), reads its step times from MaxText's log lines (compilation
/// apart) and its failures from MaxText's error lines, stores
/// and publishes a diagnose_request for its profile, waits for the
/// Analyzer's diagnosis and the Proposal agent's proposal_set, records an
/// improvement in the optimization ledger, and moves from the best run's
/// proposals (else the latest diagnosis's) to the next mesh not yet run.
///
/// When the budget is spent or no proposal is left it stores the session's
/// end (a tpu_session_end record under the session's id: every run and the
/// best) and then tells `listener` (done_atom, id, finished or exhausted,
/// ""). It fails, telling (done_atom, id, failed, reason) and
/// ending with that reason, when the simulator cannot be started or gives
/// no answer, a diagnosis carries an error, the pool refuses a write or a
/// read, a step outlasts the step timeout, or an agent it needs died.
struct tpu_session_state : agent_state {
  explicit tpu_session_state(caf::event_based_actor* self);
  ~tpu_session_state() override;

  void open(tpu_session_options options, caf::actor listener);
  /// Starts trial trials.size() + 1 on `mesh`.
  void run_trial(const tpu_mesh& mesh);
  void on_line(const std::string& key, const std::string& line);
  void on_exit(const std::string& key, int exit_code);
  /// Reads the current trial's records from the pool: what the bus lost.
  void replay();
  /// A step's timer went off; `step` tells which step armed it.
  void on_timeout(int step);
  void fail(const std::string& reason);

  tpu_session_options opts;
  caf::actor listener;
  tpu_phase phase = tpu_phase::simulating;
  std::vector<tpu_trial> trials;
  static inline const char* name = "tpu_session";

private:
  void enter(tpu_phase next);
  std::string trial_session() const;
  std::string run_dir() const;
  /// Reads the current trial's records back from the pool, hands each to
  /// its handler, then runs `after`.
  void read_back(std::function<void()> after);
  /// MaxText's arguments for `mesh`: the trainer's, then the overrides.
  std::vector<std::string> trainer_argv(const tpu_mesh& mesh) const;
  void simulated(int exit_code);
  void request_diagnosis();
  void diagnosed();
  void conclude(wire::proposal_set set);
  void advance();
  void finish(session_state end);
  /// Runs `body`, failing the session with what it throws.
  void attempt(const std::function<void()>& body);

  int step_ = 0;                           ///< counts phases entered, to match timers
  tpu_trial current_;                      ///< the trial in flight
  std::unique_ptr<child_process> process_; ///< its simulator while it runs
  std::unique_ptr<maxtext_log_parser> log_; ///< reads the trial's output as MaxText's log
  std::deque<std::string> output_;         ///< the simulator's last lines
  std::optional<wire::diagnosis> diagnosis_;
  std::optional<wire::proposal_set> proposals_;
  std::vector<wire::proposal_set> sets_;   ///< per trial, empty when not diagnosed
  wire::proposal_set last_set_;            ///< the latest non-empty one
  std::vector<tpu_mesh> tried_;            ///< meshes run
  std::vector<mesh_step> planned_;         ///< the planner's fastest meshes, ranked again
                                           ///< under fits_ after each diagnosed run
  std::vector<mesh_calibration> fits_;     ///< what each diagnosed run said of the model
  int best_ = -1;                          ///< index into trials
};

caf::behavior tpu_session(caf::stateful_actor<tpu_session_state>* self, agent_deps deps,
                          bus_bridge* bridge, tpu_session_options options, caf::actor listener);

} // namespace paratune
