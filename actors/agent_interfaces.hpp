#pragma once

// Typed interfaces of the agents, the sessions and the watchdog: each lists
// exactly the messages its actor handles, so that sending one a message it
// does not handle is a compile error (tests/e2e/agent_interfaces_test.cpp
// checks it). Every bus agent starts from bus_agent_actor, what the bus
// bridge delivers; an agent with messages of its own extends it.

#include <cstdint>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "core/session_state.hpp"
#include "messages/type_ids.hpp"

namespace paratune {

/// What the bus bridge delivers to its subscribers: (bus_atom, topic,
/// payload), one message of the bus (actors/bus_bridge.hpp).
using bus_agent_actor = caf::typed_actor<
  caf::reacts_to<bus_atom, std::string, std::string>>;

/// A subscriber that reads what it missed from the pool when the bus shows
/// a sequence gap on one of its topics (bus_bridge::subscribe_while_alive).
using replaying_actor = bus_agent_actor::extend<
  // The bus lost messages: replay the pool.
  caf::reacts_to<replay_atom>>;

/// Whoever starts a child process (or follows a Slurm job's output) hears
/// its lines and its end (agent.hpp's launch_child, output_handlers).
using child_output_actor = caf::typed_actor<
  // One line of the child's output: (line_atom, trial key, text).
  caf::reacts_to<line_atom, std::string, std::string>,
  // The child ended: (exited_atom, trial key, exit status).
  caf::reacts_to<exited_atom, std::string, int>>;

/// What every session coordinator (GPU or TPU) handles besides its own
/// timers: what the runtime, the watchdog and the daemon send it.
using session_actor = replaying_actor::extend<
  // A client cancelled it: (cancel_atom, reason).
  caf::reacts_to<cancel_atom, std::string>,
  // The watchdog: an agent it needs died, (agent_down_atom, name, reason).
  caf::reacts_to<agent_down_atom, std::string, std::string>>;

/// Who hears a session's end: the daemon's listener, `tune`'s blocking
/// actor (await_session). The session's report is its last record in the
/// pool; the text is why it stopped (a cancel's reason, a failure's).
using session_listener_actor = caf::typed_actor<
  // (done_atom, session id, how it ended, why).
  caf::reacts_to<done_atom, std::string, session_state, std::string>>;

/// A GPU tuning session (actors/tuning_session.hpp).
using tuning_session_actor = session_actor::extend<
  // Its periodic replay of the pool.
  caf::reacts_to<tick_atom>>;

/// A TPU tuning session (actors/tpu_session.hpp): a searcher whose
/// trials the validator runs.
using tpu_session_actor = session_actor::extend<
  // A step's timer (the token names the step: a simulated run, a diagnosis).
  caf::reacts_to<tick_atom, int>>;

/// The Bottleneck Analysis agent: analysis requests from the bus, records
/// from the pool's feed (actors/bottleneck_analyst.hpp).
using bottleneck_analyst_actor = bus_agent_actor;

/// One of the bottleneck analyst's workers.
using analysis_worker_actor = caf::typed_actor<
  // (analyse_atom, analysis_request envelope, the records published since
  // the session was last handed out) -> whether an analysis ran, answered
  // once its report is stored.
  caf::replies_to<analyse_atom, wire::envelope, std::vector<wire::envelope>>::with<bool>>;

/// The Strategy Generation agent: reports from the bus, records from the
/// pool's feed (actors/strategy_generator.hpp).
using strategy_generator_actor = bus_agent_actor;

/// The Strategy Validation agent (actors/validator.hpp): proposals and
/// session statuses from the bus, its trials' output, its clock, and what a
/// Slurm job's watcher tells.
using validator_actor = bus_agent_actor::extend_with<child_output_actor>::extend<
  // Its clock: the hang and wall-clock limits of running trials.
  caf::reacts_to<tick_atom>,
  // Slurm runs the trial: (placed_atom, trial key, node list).
  caf::reacts_to<placed_atom, std::string, std::string>,
  // Slurm took the trial: (submitted_atom, trial key, job id, output file).
  caf::reacts_to<submitted_atom, std::string, int64_t, std::string>>;

/// The Failure Analysis agent: trial results from the bus
/// (actors/failure_analyst.hpp).
using failure_analyst_actor = bus_agent_actor;

/// The telemetry agent (actors/telemetry_agent.hpp).
using telemetry_agent_actor = bus_agent_actor::extend<
  // Its timer: (scrape_atom, trial key) scrapes the trial's dcgm-exporter.
  caf::reacts_to<scrape_atom, std::string>>;

/// The Analyzer, a diagnosis agent: diagnose requests from the bus
/// (actors/analyzer.hpp).
using analyzer_actor = bus_agent_actor;

/// The Proposal agent, a diagnosis agent: diagnoses from the bus
/// (actors/proposal_agent.hpp).
using proposal_agent_actor = bus_agent_actor;

/// The runtime's watchdog (actors/watchdog.hpp). It monitors what it is
/// given and sends nothing to agents, so it takes any actor; sessions are
/// told as session_actor.
using watchdog_actor = caf::typed_actor<
  // (watch_atom, agent, name): monitor an agent.
  caf::reacts_to<watch_atom, caf::actor, std::string>,
  // (watch_atom, session): tell it of agent deaths.
  caf::reacts_to<watch_atom, caf::actor>>;

} // namespace paratune
