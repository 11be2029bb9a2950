#pragma once

#include "bench/telemetry_rate/bench_options.hpp"

namespace paratune::bench {

/// The pool's owner: opens a pool in a fresh directory, binds the bus proxy
/// and a ROUTER control endpoint on TCP loopback, starts the subscriber as a
/// second process of this program, writes `records` telemetry envelopes in
/// batches (append_batch) and publishes each batch once it is stored, then
/// prints one result line. Exit 0 when the subscriber got every record
/// once, 1 otherwise.
int run_producer(const bench_options& opts);

} // namespace paratune::bench
