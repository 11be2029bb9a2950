// The performance model does not depend on the tuner that uses it.
#include "core/perf/perf_model.hpp"
#include "core/tuning/reasoner.hpp"
