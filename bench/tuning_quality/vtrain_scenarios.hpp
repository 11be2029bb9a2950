#pragma once

// The vTrain reality: each measured landscape (one GPT model on one GPU
// count at one global batch, core/replay) as a scenario whose space is the
// measured set and whose truth is what was measured. A trial replays the
// measurement exactly: no noise, no injected failures (the table's own
// failures are the failures). A configuration outside the measured set is
// refused before launch as unavailable, at no trial cost, and counted.

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "adapters/config/catalog.hpp"
#include "adapters/config/measured_tables.hpp"
#include "bench/tuning_quality/scenario.hpp"

namespace paratune::bench {

/// The cluster vTrain measured on: A100s, as many per node as the job has
/// up to 8 (its 2- and 4-GPU runs shared one node).
inline cluster_spec vtrain_cluster(int gpus) {
  auto c = load_cluster("dgx-a100-80g");
  c.devices_per_node = std::min(gpus, 8);
  return c;
}

/// The distinct values of one key over the measured runs, in numeric order.
inline std::vector<std::string> measured_values(const measured_landscape& l,
                                                int training_config::*key) {
  std::set<int> values;
  for (const auto& r : l.runs)
    values.insert(r.config.*key);
  std::vector<std::string> out;
  for (int v : values)
    out.push_back(std::to_string(v));
  return out;
}

inline scenario vtrain_scenario(const measured_landscape& l) {
  scenario s;
  s.file = "vtrain";
  s.reality = reality::vtrain;
  s.job.name = l.name;
  s.job.model = l.model;
  s.job.cluster = vtrain_cluster(l.gpus);
  s.job.cluster_ref = "dgx-a100-80g";
  s.job.nodes = l.gpus / s.job.cluster.devices_per_node;
  s.job.prec = precision::fp16;
  // A measured sweep has no team setup to measure first: paratune's first
  // trial is the model's best candidate, as the grid's is. One change at a
  // time needs a point to walk from: the first configuration the table
  // lists (which also supplies the keys the search leaves alone).
  s.job.initial = l.runs.front().config;
  s.job.start = start_policy::predicted_best;
  s.job.search = {{"tp", measured_values(l, &training_config::tp)},
                  {"pp", measured_values(l, &training_config::pp)},
                  {"mbs", measured_values(l, &training_config::mbs)}};
  s.context = context_of(s.job);
  for (const auto& r : l.runs)  // what `paratune tune` knows of a replay pool
    s.context.measured.push_back(r.config);
  for (const auto& r : l.runs) {
    simulated_outcome o;
    o.truth.iteration_time_s = r.iteration_ms / 1000;
    o.truth.tflops_per_gpu = r.tflops_per_gpu;
    o.truth.mfu = r.tflops_per_gpu / s.job.cluster.device.peak_tflops(s.job.prec);
    o.truth.peak_memory_mib = r.peak_memory_mib;
    o.truth.memory_limit_mib = s.job.cluster.memory_mib();
    o.out_of_memory = r.failed(); // a row that failed cannot run here either
    s.index_.emplace(fingerprint(r.config), int(s.space.size()));
    s.space.push_back(r.config);
    s.truth.push_back(o);
    if (!r.failed() && r.tflops_per_gpu > s.optimum_tflops) {
      s.optimum_tflops = r.tflops_per_gpu;
      s.optimum = int(s.space.size()) - 1;
    }
  }
  return s;
}

/// The landscapes of the vTrain tables in `data_dir` with at least
/// `min_runs` measured configurations, as scenarios.
inline std::vector<scenario> load_vtrain_scenarios(const std::string& data_dir,
                                                   size_t min_runs = 4) {
  const auto all = load_vtrain_ground_truth(data_dir);
  std::vector<scenario> out;
  for (const auto* l : landscapes_with_at_least(all, min_runs))
    out.push_back(vtrain_scenario(*l));
  return out;
}

} // namespace paratune::bench
