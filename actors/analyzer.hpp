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
struct analyzer_state : basic_agent_state<analyzer_actor> {
  explicit analyzer_state(analyzer_actor::pointer self);

  static inline const char* name = "analyzer";
};

analyzer_actor::behavior_type
analyzer(analyzer_actor::stateful_pointer<analyzer_state> self, agent_deps deps);

} // namespace paratune
