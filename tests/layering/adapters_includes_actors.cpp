// Adapters translate the outside world; they do not drive agents.
#include "adapters/diagnosis/evidence_sources.hpp"
#include "actors/runtime.hpp"
