#pragma once

#include "bench/telemetry_rate/bench_options.hpp"

namespace paratune::bench {

/// The subscriber process: takes telemetry.* from the bus over TCP through
/// a record_feed (holes recovered from the producer's pool), checks every
/// record 1..records arrived once and in order on its stream, prints a
/// subscriber_report line. Exit 0 when exact, 1 otherwise.
int run_subscriber(const bench_options& opts);

} // namespace paratune::bench
