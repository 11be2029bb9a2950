#pragma once

#include <cstdint>
#include <string>

#include "core/perf/perf_model.hpp"

namespace paratune {

/// The simulated cluster's hidden truth: the performance model run with
/// perturbed calibration knobs that the predictor never sees. The knobs
/// are drawn from the cluster's name, so a cluster behaves the same in
/// every run and test, and differently from its siblings: collective
/// efficiency, a shifted GEMM efficiency curve, allocator overhead and a
/// straggler.
perf_calibration hidden_calibration(const std::string& cluster_name);

/// What a run of one configuration would truly do.
struct simulated_outcome {
  perf_prediction truth;        ///< time and memory of the hidden model
  bool out_of_memory = false;   ///< the true peak exceeds the device
  int oom_stage = -1;           ///< the first stage that runs out
};

simulated_outcome simulate(const model_spec& m, const cluster_spec& cluster, int world_size,
                           const training_config& c, precision p);

/// A deterministic 64-bit mix (splitmix64), for seeding from names.
uint64_t mix64(uint64_t x);
uint64_t hash_name(const std::string& s);

} // namespace paratune
