#pragma once

#include <caf/fwd.hpp>

#include "actors/agent.hpp"

namespace paratune {

/// ASAP's Analyzer agent. Subscribes to "diagnose." (diagnose_request): reads
/// the experiment and the profiles it names (Xprof directory or server,
/// Kineto trace, Megatron log), runs the KPI health check and bottleneck
/// classification, and stores and publishes a `diagnosis` on
/// "diagnosis.<session>". A request it cannot serve (bad experiment,
/// unreadable profiles) still gets a diagnosis, with `error` saying why.
/// Reading profiles blocks: spawn it detached.
struct analyzer_state : agent_state {
  explicit analyzer_state(caf::event_based_actor* self);

  static inline const char* name = "analyzer";
};

caf::behavior analyzer(caf::stateful_actor<analyzer_state>* self, agent_deps deps);

} // namespace paratune
