#include "actors/replay_answer.hpp"

#include "core/cluster_spec.hpp"
#include "core/model_flops_utilization.hpp"
#include "core/tuning/safety_guards.hpp"
#include "messages/conversions.hpp"

namespace paratune {

namespace {

void fill_measured(const wire::measured_run_wire& m, const wire::session_opened& job,
                   wire::trial_result& r) {
  r.status = trial_status::succeeded;
  r.tflops_per_gpu = m.tflops_per_gpu;
  r.iteration_ms = m.iteration_ms;
  r.mfu = model_flops_utilization(m.tflops_per_gpu, wire::from_wire(job.cluster).device);
  r.peak_memory_mib = m.peak_memory_mib;
  r.iterations_scored = job.train_iters;
  r.gpu_hours = m.iteration_ms * job.train_iters / 3.6e6 * job.world_size;
}

void fill_failed(const wire::measured_run_wire& m, const wire::pool_wire& pool,
                 wire::trial_result& r) {
  r.status = trial_status::failed;
  r.error_kind = m.failure;
  r.exit_code = 1;
  r.error_message = (m.failure == failure_kind::oom ? std::string("CUDA out of memory")
                                                    : std::string("the run failed"))
                    + " (replay table " + pool.table + ", line " + std::to_string(m.line) + ")";
  r.reason = r.error_message;
  r.log_tail = {r.error_message};
}

} // namespace

wire::trial_result replay_answer(const wire::pool_wire& pool, const wire::proposal& p,
                                 const wire::session_opened& job, int64_t now_ms) {
  wire::trial_result r;
  r.trial = p.trial;
  r.retry_of = p.retry_of;
  r.config = p.config;
  r.pool = pool.name;
  r.started_at_ms = r.ended_at_ms = now_ms;
  const auto* m = wire::measured_run_of(pool, wire::from_wire(p.config));
  if (!m) {
    r.status = trial_status::skipped;
    r.reason = std::string(unavailable_reason) + " " + pool.table;
    return r;
  }
  if (m->failure == failure_kind::none)
    fill_measured(*m, job, r);
  else
    fill_failed(*m, pool, r);
  return r;
}

} // namespace paratune
