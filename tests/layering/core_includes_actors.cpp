// core knows nothing of CAF or the agents.
#include "core/tuning/reasoner.hpp"
#include "actors/runtime.hpp"
