// The report library knows nothing of the running agents.
#include "report/charts.hpp"
#include "actors/runtime.hpp"
