#pragma once

#include <caf/fwd.hpp>

#include "actors/agent_io.hpp"

namespace paratune {

struct analyzer_state {
  static inline const char* name = "analyzer";
};

/// ASAP's Analyzer agent. Subscribes to "diagnose." (diagnose_request): reads
/// the experiment and the profiles it names (Xprof directory or server,
/// Kineto trace, Megatron log), runs the KPI health check and bottleneck
/// classification, and stores and publishes a `diagnosis` on
/// "diagnosis.<session>". A request it cannot serve (bad experiment,
/// unreadable profiles) still gets a diagnosis, with `error` saying why.
/// Reading profiles blocks: spawn it detached.
caf::behavior analyzer(caf::stateful_actor<analyzer_state>* self, agent_deps deps);

} // namespace paratune
