#include "core/replay/measured_landscape.hpp"

#include "core/cluster_spec.hpp"
#include "core/perf/flops.hpp"
#include "core/perf/perf_context.hpp"

namespace paratune {

const measured_run* measured_landscape::find(const training_config& c) const {
  for (const auto& r : runs)
    if (r.config == c)
      return &r;
  return nullptr;
}

const measured_run* measured_landscape::best() const {
  const measured_run* out = nullptr;
  for (const auto& r : runs)
    if (!r.failed && (!out || r.iteration_ms < out->iteration_ms))
      out = &r;
  return out;
}

std::vector<const measured_landscape*> landscapes_with_at_least(
    const std::vector<measured_landscape>& all, size_t min_runs) {
  std::vector<const measured_landscape*> out;
  for (const auto& l : all)
    if (l.runs.size() >= min_runs)
      out.push_back(&l);
  return out;
}

double measured_tflops_per_gpu(const model_spec& m, const training_config& c, int gpus,
                               double iteration_ms) {
  // The FLOP count does not depend on the device: any cluster gives the
  // same context fields the count reads.
  const cluster_spec any;
  const auto x = make_context(m, any, gpus, c, precision::bf16, {});
  return model_flops_noncausal(x) / (iteration_ms / 1000 * gpus) / 1e12;
}

} // namespace paratune
