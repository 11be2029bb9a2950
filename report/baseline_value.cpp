#include "report/baseline_value.hpp"

#include <fmt/format.h>

#include "messages/conversions.hpp"

namespace paratune {

const char* to_string(baseline_source s) {
  switch (s) {
    case baseline_source::session_trial: return "session_trial";
    case baseline_source::job_file: return "job_file";
    case baseline_source::not_measured: return "not_measured";
  }
  return "not_measured";
}

namespace {

// The first measured trial that ran exactly the baseline configuration.
const trial_row* trial_running(const session_summary& s, const training_config& baseline) {
  for (const auto& r : s.trials)
    if (r.measured() && r.iteration_ms > 0 && wire::from_wire(r.config) == baseline)
      return &r;
  return nullptr;
}

full_run_cost cost_of(const session_summary& s, const training_config& c, double iteration_ms) {
  return cost_of_training(s.job.tokens, c.gbs, c.seq, iteration_ms, s.job.world_size);
}

// The iteration time `c` would take at `tflops_per_gpu`, scaled from the
// measured trial `ref`: FLOPs per token are the same for every
// configuration of the job, so time per token goes as 1 / throughput.
double iteration_ms_at(const trial_row& ref, const training_config& c, double tflops_per_gpu) {
  const auto rc = wire::from_wire(ref.config);
  const double tokens_ratio = double(c.gbs) * double(c.seq) / (double(rc.gbs) * double(rc.seq));
  return ref.iteration_ms * (ref.tflops_per_gpu / tflops_per_gpu) * tokens_ratio;
}

} // namespace

std::optional<baseline_pace> baseline_pace_of(const session_summary& s) {
  if (!s.job.baseline.given)
    return std::nullopt;
  if (const auto* r = trial_running(s, wire::from_wire(s.job.baseline.config)))
    return baseline_pace{baseline_source::session_trial, r->index, r->tflops_per_gpu};
  if (s.job.baseline.tflops_per_gpu > 0)
    return baseline_pace{baseline_source::job_file, 0, s.job.baseline.tflops_per_gpu};
  return std::nullopt;
}

std::optional<baseline_value> baseline_of(const session_summary& s) {
  if (!s.job.baseline.given || s.job.tokens <= 0 || !s.best || s.best->iteration_ms <= 0)
    return std::nullopt;
  const auto config = wire::from_wire(s.job.baseline.config);
  baseline_value v;
  if (const auto* r = trial_running(s, config)) {
    v.source = baseline_source::session_trial;
    v.trial = r->index;
    v.tflops_per_gpu = r->tflops_per_gpu;
    v.cost = cost_of(s, config, r->iteration_ms);
  } else if (s.job.baseline.tflops_per_gpu > 0) {
    v.source = baseline_source::job_file;
    v.tflops_per_gpu = s.job.baseline.tflops_per_gpu;
    v.cost = cost_of(s, config, iteration_ms_at(*s.best, config, v.tflops_per_gpu));
  } else {
    return v; // named, not measured: nothing to price
  }
  const auto best = cost_of(s, wire::from_wire(s.best->config), s.best->iteration_ms);
  v.gpu_hours_saved = v.cost.gpu_hours - best.gpu_hours;
  return v;
}

nlohmann::json baseline_json(const session_summary& s) {
  const auto v = baseline_of(s);
  if (!v)
    return nullptr;
  nlohmann::json j = {{"source", to_string(v->source)}, {"config", s.job.baseline.config}};
  if (v->source == baseline_source::not_measured)
    return j;
  if (v->source == baseline_source::session_trial)
    j["trial"] = v->trial;
  j["tflops_per_gpu"] = v->tflops_per_gpu;
  j["iterations"] = v->cost.iterations;
  j["days"] = v->cost.days;
  j["gpu_hours"] = v->cost.gpu_hours;
  j["gpu_hours_saved"] = v->gpu_hours_saved;
  return j;
}

std::string baseline_sentence(const session_summary& s) {
  const auto v = baseline_of(s);
  if (!v)
    return "";
  switch (v->source) {
    case baseline_source::session_trial:
      return fmt::format("baseline: {:.1f} days, {:.0f} GPU-hours at {:.1f} TFLOP/s/GPU measured "
                         "by trial {} of this session; the best configuration saves {:.0f} "
                         "GPU-hours against it",
                         v->cost.days, v->cost.gpu_hours, v->tflops_per_gpu, v->trial,
                         v->gpu_hours_saved);
    case baseline_source::job_file:
      return fmt::format("baseline: {:.1f} days, {:.0f} GPU-hours at the {:.1f} TFLOP/s/GPU the "
                         "job file gives (no trial of this session ran it); the best "
                         "configuration saves {:.0f} GPU-hours against it",
                         v->cost.days, v->cost.gpu_hours, v->tflops_per_gpu, v->gpu_hours_saved);
    case baseline_source::not_measured:
      break;
  }
  return "baseline: not measured (no trial of this session ran it and the job file gives no "
         "tflops_per_gpu), so it is not priced";
}

} // namespace paratune
