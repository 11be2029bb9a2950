#include "core/full_run_cost.hpp"

namespace paratune {

full_run_cost cost_of_training(double tokens, int64_t gbs, int64_t seq, double iteration_ms,
                               int64_t devices) {
  if (tokens <= 0 || gbs <= 0 || seq <= 0 || iteration_ms <= 0 || devices <= 0)
    return {};
  full_run_cost c;
  c.iterations = tokens / (double(gbs) * double(seq));
  const double hours = c.iterations * iteration_ms / 3.6e6;
  c.days = hours / 24;
  c.gpu_hours = hours * double(devices);
  return c;
}

} // namespace paratune
