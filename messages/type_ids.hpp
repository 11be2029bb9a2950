#pragma once

// The one CAF type-ID block of paratune. Between actors, records travel as
// wire::envelope values (never encoded inside one process); the bus and the
// pool carry the same envelope as msgpack bytes.

#include <cstdint>
#include <string>
#include <vector>

#include <caf/atom.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/type_id.hpp>

#include "core/session_state.hpp"
#include "messages/wire_types.hpp"

namespace paratune::wire {

/// CAF's view of an envelope (for its type registry and log rendering).
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, envelope& x) {
  return f(caf::meta::type_name("paratune.envelope"), x.v, x.type, x.session, x.trial, x.seq,
           x.ts_ms, x.body, x.prev_seq);
}

} // namespace paratune::wire

CAF_BEGIN_TYPE_ID_BLOCK(paratune, caf::first_custom_type_id)
  CAF_ADD_TYPE_ID(paratune, (paratune::wire::envelope))
  CAF_ADD_TYPE_ID(paratune, (std::vector<paratune::wire::envelope>))
  CAF_ADD_TYPE_ID(paratune, (paratune::session_state))
  /// Ingress thread -> subscriber: (bus_atom, topic, payload).
  CAF_ADD_ATOM(paratune, paratune, bus_atom, "bus")
  /// The bus saw a sequence gap: what it carried may be lost, replay the pool.
  CAF_ADD_ATOM(paratune, paratune, replay_atom, "replay")
  /// Agent -> egress: (publish_atom, topic, payload).
  CAF_ADD_ATOM(paratune, paratune, publish_atom, "publish")
  /// Agent -> pool: (append_atom, envelope) -> seq. The pool publishes what
  /// it stored on "record.<session>" (topics::record) before it answers.
  CAF_ADD_ATOM(paratune, paratune, append_atom, "append")
  /// Agent -> pool: (history_atom, session, after_seq) -> vector<envelope>.
  CAF_ADD_ATOM(paratune, paratune, history_atom, "history")
  /// Starts a session or a trial.
  CAF_ADD_ATOM(paratune, paratune, start_atom, "start")
  /// A session ended: (done_atom, session, session_state).
  CAF_ADD_ATOM(paratune, paratune, done_atom, "done")
  /// Child process output: (line_atom, trial key, text).
  CAF_ADD_ATOM(paratune, paratune, line_atom, "line")
  /// Child process ended: (exited_atom, trial key, exit status).
  CAF_ADD_ATOM(paratune, paratune, exited_atom, "exited")
  /// A self-message on a timer: (tick_atom) a session's periodic replay or
  /// the pool's retry of the writes it holds, (tick_atom, step) a TPU
  /// session's step timeout.
  CAF_ADD_ATOM(paratune, paratune, tick_atom, "tick")
  /// A telemetry agent's timer: (scrape_atom, trial key) scrapes the
  /// dcgm-exporter of the trial's pool.
  CAF_ADD_ATOM(paratune, paratune, scrape_atom, "scrape")
  /// Runtime -> watchdog: (watch_atom, actor) to tell of agent deaths.
  CAF_ADD_ATOM(paratune, paratune, watch_atom, "watch")
  /// Watchdog -> session: (agent_down_atom, agent name, reason).
  CAF_ADD_ATOM(paratune, paratune, agent_down_atom, "agentdown")
  /// A Slurm watch's thread -> validator: (submitted_atom, trial key, job id,
  /// output file) once the scheduler accepted the job.
  CAF_ADD_ATOM(paratune, paratune, submitted_atom, "submitted")
  /// A Slurm watch's thread -> validator: (placed_atom, trial key, node
  /// list) once the scheduler runs the job, on Slurm's compressed list.
  CAF_ADD_ATOM(paratune, paratune, placed_atom, "placed")
  /// Daemon -> session: (cancel_atom, reason) ends it as cancelled.
  CAF_ADD_ATOM(paratune, paratune, cancel_atom, "cancel")
  /// Bottleneck analyst -> one of its workers: (analyse_atom, analysis_request
  /// envelope, the session's records published since it was last handed
  /// out), answered once the report is stored (actors/bottleneck_analyst.hpp).
  CAF_ADD_ATOM(paratune, paratune, analyse_atom, "analyse")
CAF_END_TYPE_ID_BLOCK(paratune)
