#pragma once

// Which hidden truth answers the trials of bench_tuning_quality.

#include <optional>
#include <string>

#include "sim/gpu/independent_truth.hpp"
#include "sim/gpu/simulated_cluster.hpp"

namespace paratune::bench {

enum class reality {
  simulated,    ///< sim/gpu/simulated_cluster: paratune's model, perturbed, plus structure it lacks
  independent,  ///< sim/gpu/independent_truth: a roofline that owes nothing to the model
  vtrain,       ///< replays of measured vTrain landscapes (needs the replay pool)
};

inline const char* to_string(reality r) {
  switch (r) {
    case reality::simulated: return "simulated";
    case reality::independent: return "independent";
    case reality::vtrain: return "vtrain";
  }
  return "simulated";
}

inline std::optional<reality> parse_reality(const std::string& s) {
  for (auto r : {reality::simulated, reality::independent, reality::vtrain})
    if (s == to_string(r))
      return r;
  return std::nullopt;
}

/// What `c` truly does under reality `r` (simulated or independent).
inline simulated_outcome true_outcome(reality r, const model_spec& m, const cluster_spec& cluster,
                                      int world_size, const training_config& c, precision p) {
  return r == reality::independent ? simulate_independent(m, cluster, world_size, c, p)
                                   : simulate(m, cluster, world_size, c, p);
}

} // namespace paratune::bench
