// What core/replay may use: core/perf (the FLOP count) and core.
#include "core/replay/sweep_table.hpp"
#include "core/perf/flops.hpp"
#include "core/measured_run.hpp"
