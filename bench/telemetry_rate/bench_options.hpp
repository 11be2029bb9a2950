#pragma once

#include <cstdint>
#include <string>

namespace paratune::bench {

/// The two roles of bench_telemetry_rate: the producer (the pool's owner,
/// run by hand) starts the subscriber as a second process of itself.
enum class bench_role { produce, subscribe };

struct bench_options {
  bench_role role = bench_role::produce;
  uint64_t records = 1000000;  ///< telemetry envelopes written and published
  int sessions = 4;
  int trials = 8;              ///< per session: telemetry.<sid>.<n>, n = 1..trials
  int batch = 1000;            ///< records per append_batch
  int hwm = 0;                 ///< ZMQ_SNDHWM and ZMQ_RCVHWM; 0: the bus's default
  std::string label = "rate";  ///< names the run in its result line
  std::string dir;             ///< where the pool goes (a fresh temporary directory by default)
  // The subscriber's side, given by the producer:
  std::string bus;             ///< the proxy's subscribe endpoint
  std::string control;         ///< the producer's ROUTER endpoint
  int64_t start_ns = 0;        ///< when the producer started writing (steady clock)
  int timeout_s = 120;         ///< the subscriber gives up after this long
};

/// The session id of session `index` (0-based) of a run.
inline std::string session_id(int index) { return "bench-s" + std::to_string(index + 1); }

/// Nanoseconds on the steady clock, which every process on the machine shares
/// (CLOCK_MONOTONIC), so the two roles' times subtract.
int64_t steady_ns();

} // namespace paratune::bench
