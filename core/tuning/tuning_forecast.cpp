#include "core/tuning/tuning_forecast.hpp"

#include <algorithm>

#include "core/tuning/memory_screen.hpp"

namespace paratune {

tuning_forecast forecast_tuning(const job_spec& job, std::size_t top_k,
                                const perf_calibration& cal) {
  tuning_forecast f;
  const int world = job.world_size();
  f.space_size = space_size(job.search);
  plan_request r{job.model, job.cluster, world, job.prec, job.initial, job.search,
                 std::max<std::size_t>(top_k, std::size_t(std::max(job.trials, 1))), cal};
  f.screened = plan_space(r);
  const double iteration_gpu_s = double(job.train_iters) * world;
  int left = job.trials;
  if (job.start == start_policy::initial && left > 0) {
    f.initial = predict(job.model, job.cluster, world, job.initial, job.prec, cal);
    --left;
    ++f.trials;
    // A trial the memory screen refuses is skipped, and costs nothing.
    if (!screen_before_any_run(job.initial, *f.initial))
      f.gpu_hours += f.initial->iteration_time_s * iteration_gpu_s / 3600;
  }
  const auto& top = f.screened.top;
  if (top.empty())
    return f;
  double mean_s = 0;
  for (const auto& t : top)
    mean_s += t.prediction.iteration_time_s;
  mean_s /= double(top.size());
  const int runnable = int(std::min<std::size_t>(f.screened.fitting, std::size_t(left)));
  for (int i = 0; i < runnable; ++i) {
    const double s = std::size_t(i) < top.size() ? top[std::size_t(i)].prediction.iteration_time_s
                                                 : mean_s;
    f.gpu_hours += s * iteration_gpu_s / 3600;
  }
  f.trials += runnable;
  if (top_k < top.size())
    f.screened.top.resize(top_k);
  return f;
}

} // namespace paratune
