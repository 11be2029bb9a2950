#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "actors/agent.hpp"
#include "actors/trial_key.hpp"
#include "actors/tpu_session_options.hpp"
#include "decisions/tpu_session_step.hpp"
#include "decisions/tpu_trial_command.hpp"
#include "ledger/tpu_diagnosis.hpp"
#include "messages/ec.hpp"
#include "core/session_state.hpp"
#include "messages/wire_types.hpp"

namespace paratune {

class bus_bridge;

/// ASAP's loop on a TPU slice, as a searcher over the session's ledger. Each
/// trial is a mesh, proposed as MaxText's command line for it
/// (decisions/tpu_trial_command: a mesh MaxText refuses is a failed trial,
/// never a launch) and run by the validator as it runs every framework's
/// trials: on simulated, local and Slurm pools, with the trial's
/// environment, redaction, early stop, pool pausing and attaching after a
/// restart in that one place. When a trial's result comes, the session
/// writes the run's row; a measured run is diagnosed (a diagnose_request
/// for its folder: the Analyzer's diagnosis and the Proposal agent's
/// proposal_set come as session <id>.t<n>), and its row then holds what the
/// search moves from. What to do next is decided from the ledger alone
/// (decisions/tpu_session_step): the actor keeps no runs.
///
/// When the budget is spent or no mesh is left it stores the session's end
/// (a tpu_session_end record: every run and the best) and then tells
/// `listener` (done_atom, id, finished or exhausted, ""). It fails, telling
/// (done_atom, id, failed, reason), when a simulated trainer prints no
/// MaxText line or outlasts the step timeout, a diagnosis carries an error
/// or never comes, every pool is paused, the pool refuses a write or a
/// read, or an agent it needs died.
struct tpu_session_state : basic_agent_state<tpu_session_actor> {
  explicit tpu_session_state(tpu_session_actor::pointer self);

  void open(tpu_session_options options, session_listener_actor listener);
  /// Its own records, its trials' diagnoses; none once it is ending.
  bool wants(const wire::envelope& e) const override {
    return !ending && (e.session == opts.id || tpu_trial_of_session(opts.id, e.session) > 0);
  }
  /// A record of the session was stored at `seq`: the next step.
  void advance(uint64_t seq);
  /// Reads what the pool gained (what the bus lost), then the next step.
  void replay();
  /// A client cancelled the session: the validator ends its runs, and the
  /// end is stored with them as stopped.
  void cancel(const std::string& why) { finish(session_state::cancelled, why); }
  /// A step's timer went off; `token` tells which.
  void on_timeout(int token);
  void fail(const std::string& reason);

  tpu_session_options opts;
  session_listener_actor listener;
  bool ending = false;
  static inline const char* name = "tpu_session";

private:
  /// What a live timer watches: a simulated run, or a run's diagnosis.
  struct step_timer {
    int trial = 0;
    bool diagnosis = false;
  };

  tpu_search search() const {
    return {&opts.experiment, opts.budget, opts.max_runs_per_mesh, wall_clock_ms()};
  }
  /// The session's job as the validator runs it (null before it is read).
  const wire::session_opened* runner() const { return ledgers->of(opts.id)->runner_job(); }
  void act(const session_ledger& ledger);
  void propose(const tpu_session_step& step);
  /// Stores `row`; a measured one's diagnosis is asked for once it is stored.
  void store_row(const wire::tpu_trial_row& row, const session_ledger& ledger);
  /// Stores `e` (and publishes it on `topic` when one is given); the next
  /// step waits until every write is stored.
  void write(wire::envelope e, const std::string& topic, std::function<void(uint64_t)> then = {});
  void request_diagnosis(const wire::tpu_trial_row& row);
  /// What to do when a run's diagnosis is not all in yet.
  enum class missing_answer { wait, ask_again, fail };
  /// Reads trial `trial`'s diagnosis and proposals from the pool; when both
  /// are in, its row ends with them. Otherwise as `missing` says (a
  /// failure names `limit`, the time it had).
  void check_diagnosis(int trial, missing_answer missing, const std::string& limit = {});
  /// After the first read of a resumed session: asks again for what was in
  /// flight when the last process ended, then goes on.
  void recover(const session_ledger& ledger);
  void finish(session_state end, const std::string& text = {});
  /// Tells the validator the session ended, so that it ends the runs.
  void stop_trials(session_state end, const std::string& text);
  static std::string no_end(const caf::error& e) {
    return "cannot store the session's end: " + describe(e);
  }
  /// Tells the listener how the session ended, and quits.
  void ended(session_state end, const std::string& text);
  void arm_timer(int trial, bool diagnosis);
  /// Fails the session with a read of its history the pool refused.
  std::function<void(const caf::error&)> history_failed();

  /// The periodic read of the pool (a token no step timer has).
  static constexpr int replay_token = 0;
  static constexpr std::chrono::seconds replay_period{2};

  int writes_ = 0;            ///< records being stored
  uint64_t heard_ = 0;        ///< the highest sequence number a notice named
  uint64_t written_ = 0;      ///< the highest sequence number this session stored
  bool recovering_ = false;   ///< resumed: the first read of the pool is still to come
  int tokens_ = 0;
  std::map<int, step_timer> timers_; ///< by token, the live ones
};

tpu_session_actor::behavior_type
tpu_session(tpu_session_actor::stateful_pointer<tpu_session_state> self, agent_deps deps,
            bus_bridge* bridge, tpu_session_options options, session_listener_actor listener);

} // namespace paratune
