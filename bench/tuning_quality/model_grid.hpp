#pragma once

// The predict-then-grid peer (NeMo's Auto Configurator, DeepSpeed's
// autotuner): rank the whole valid space by paratune's own performance
// model, drop what its memory screen says cannot fit, then run the best
// candidates in that order without learning from the runs. A failed run is
// skipped for the next candidate; nothing is retried.

#include <algorithm>
#include <vector>

#include "bench/tuning_quality/strategies.hpp"
#include "core/perf/perf_model.hpp"
#include "core/tuning/memory_screen.hpp"

namespace paratune::bench {

/// The space's indices, best predicted throughput first, among the
/// configurations the memory screen (no measurements: the model's own
/// margin) lets through. Ranked by tokens per second per GPU, as
/// `paratune plan` ranks.
inline std::vector<int> model_ranking(const scenario& s) {
  const auto& ctx = s.context;
  std::vector<perf_prediction> predicted;
  predicted.reserve(s.space.size());
  for (const auto& c : s.space)
    predicted.push_back(predict(ctx.model, ctx.cluster, ctx.world_size, c, ctx.prec, ctx.cal));
  const std::vector<trial_outcome> no_history;
  const memory_screen screen(no_history, [&](const training_config& c) -> const perf_prediction& {
    return predicted[size_t(s.index_of(c))];
  });
  std::vector<int> order;
  for (size_t i = 0; i < s.space.size(); ++i)
    if (!screen.check(s.space[i], predicted[i]))
      order.push_back(int(i));
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return predicted[a].tokens_per_s_per_gpu > predicted[b].tokens_per_s_per_gpu;
  });
  return order;
}

inline trial_log run_model_grid(const scenario& s, const trial_runner& runner, int budget,
                                uint64_t seed) {
  const auto order = model_ranking(s);
  trial_log log;
  for (int trial = 1; trial <= budget && trial <= int(order.size()); ++trial)
    log.push_back(runner.run(s.space[order[trial - 1]], trial_seed(seed, trial)));
  return log;
}

} // namespace paratune::bench
