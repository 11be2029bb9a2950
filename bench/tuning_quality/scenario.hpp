#pragma once

// A tuning-quality scenario: a job file (configs/examples format) plus the
// whole valid search space evaluated against the simulated cluster's
// hidden truth, so every strategy can be scored against the exhaustive
// optimum.

#include <algorithm>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "adapters/config/job_loader.hpp"
#include "core/megatron_rules.hpp"
#include "bench/tuning_quality/reality.hpp"
#include "sim/gpu/simulated_cluster.hpp"
#include "core/tuning/tuning_context.hpp"

namespace paratune::bench {

struct scenario {
  std::string file;
  job_spec job;
  bench::reality reality = bench::reality::simulated;  ///< the hidden truth that answers
  tuning_context context;
  /// Every configuration of the search space that passes Megatron's rules.
  /// Flags that need a companion (SP without TP, the param gather without
  /// the distributed optimizer) are rule violations, so each entry is a
  /// distinct run.
  std::vector<training_config> space;
  std::vector<simulated_outcome> truth;  ///< parallel to `space`
  int optimum = -1;                      ///< index of the true best that fits
  double optimum_tflops = 0;

  int index_of(const training_config& c) const {
    auto it = index_.find(fingerprint(c));
    return it == index_.end() ? -1 : it->second;
  }

  std::unordered_map<std::string, int> index_;
};

inline tuning_context context_of(const job_spec& job) {
  tuning_context ctx;
  ctx.model = job.model;
  ctx.cluster = job.cluster;
  ctx.world_size = job.world_size();
  ctx.prec = job.prec;
  ctx.initial = job.initial;
  ctx.start = job.start;
  ctx.search = job.search;
  ctx.retry_transient = job.retry_transient;
  ctx.stop = job.stop;
  return ctx;
}

/// The valid configurations of a search space, in the space's own order.
inline std::vector<training_config> enumerate_space(const tuning_context& ctx) {
  std::vector<std::pair<std::string, std::vector<std::string>>> dims(ctx.search.begin(),
                                                                     ctx.search.end());
  std::vector<training_config> out;
  training_config c = ctx.initial;
  std::function<void(size_t)> walk = [&](size_t i) {
    if (i == dims.size()) {
      if (check_megatron_rules(ctx.model, c, ctx.world_size).empty())
        out.push_back(c);
      return;
    }
    const auto saved = get_value(c, dims[i].first);
    for (const auto& v : dims[i].second) {
      set_value(c, dims[i].first, v);
      walk(i + 1);
    }
    set_value(c, dims[i].first, saved);
  };
  walk(0);
  return out;
}

/// `truth_name`, when not empty, renames the cluster: the simulated cluster
/// draws its hidden truth from the name, so the same hardware gets another
/// truth (the predictor never reads the name).
inline scenario load_scenario(const std::string& path, const std::string& truth_name = "",
                              reality r = reality::simulated) {
  scenario s;
  s.file = path;
  s.reality = r;
  s.job = load_job(path);
  if (!truth_name.empty())
    s.job.cluster.name = truth_name;
  s.context = context_of(s.job);
  s.space = enumerate_space(s.context);
  s.truth.reserve(s.space.size());
  for (size_t i = 0; i < s.space.size(); ++i) {
    s.index_.emplace(fingerprint(s.space[i]), int(i));
    s.truth.push_back(true_outcome(r, s.job.model, s.job.cluster, s.context.world_size,
                                   s.space[i], s.job.prec));
    const auto& t = s.truth.back();
    if (!t.out_of_memory && t.truth.tflops_per_gpu > s.optimum_tflops) {
      s.optimum_tflops = t.truth.tflops_per_gpu;
      s.optimum = int(i);
    }
  }
  return s;
}

} // namespace paratune::bench
