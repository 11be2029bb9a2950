#pragma once

// The one CAF type-ID block of paratune. Actors exchange atoms, strings and
// integers only: typed data travels as msgpack envelopes (wire_types.hpp),
// the same bytes the bus carries and the pool stores.

#include <caf/atom.hpp>
#include <caf/type_id.hpp>

CAF_BEGIN_TYPE_ID_BLOCK(paratune, caf::first_custom_type_id)
  /// Ingress thread -> subscriber: (bus_atom, topic, payload).
  CAF_ADD_ATOM(paratune, paratune, bus_atom, "bus")
  /// Agent -> egress: (publish_atom, topic, payload).
  CAF_ADD_ATOM(paratune, paratune, publish_atom, "publish")
  /// Agent -> pool: (append_atom, envelope) -> seq.
  CAF_ADD_ATOM(paratune, paratune, append_atom, "append")
  /// Agent -> pool: (history_atom, session) -> vector<string> of envelopes.
  CAF_ADD_ATOM(paratune, paratune, history_atom, "history")
  /// Starts a session or a trial.
  CAF_ADD_ATOM(paratune, paratune, start_atom, "start")
  /// A session ended: (done_atom, session, state).
  CAF_ADD_ATOM(paratune, paratune, done_atom, "done")
  /// Child process output: (line_atom, trial key, text).
  CAF_ADD_ATOM(paratune, paratune, line_atom, "line")
  /// Child process ended: (exited_atom, trial key, exit status).
  CAF_ADD_ATOM(paratune, paratune, exited_atom, "exited")
  /// A periodic self-message (watchdogs).
  CAF_ADD_ATOM(paratune, paratune, tick_atom, "tick")
CAF_END_TYPE_ID_BLOCK(paratune)
