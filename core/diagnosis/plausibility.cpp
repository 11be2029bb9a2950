#include "core/diagnosis/plausibility.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/model_flops_utilization.hpp"
#include "core/perf/flops.hpp"
#include "core/perf/perf_context.hpp"

namespace paratune {

namespace {

// How far the reported rate is beyond the ceiling, with its sentence.
void check_rate(const kpi_evidence& k, const std::string& device, double ceiling,
                plausibility_finding& f, std::string& what) {
  if (!k.tflops_per_device || !k.peak_tflops_per_device || *k.peak_tflops_per_device <= 0)
    return;
  f.mfu = model_flops_utilization(*k.tflops_per_device, *k.peak_tflops_per_device);
  if (f.mfu <= ceiling)
    return;
  f.factor = std::max(f.factor, f.mfu / ceiling);
  f.impossible = f.impossible || f.mfu > 1;
  what = fmt::format("{:.1f} TFLOP/s per device is {:.1f}% of the {}'s {:.0f} TFLOP/s peak{}",
                     *k.tflops_per_device, 100 * f.mfu, device.empty() ? "device" : device,
                     *k.peak_tflops_per_device,
                     f.mfu > 1 ? ", more than the device can deliver" : "");
}

// A step shorter than the floor at the ceiling's MFU is as implausible as
// the rate above it; shorter than the floor itself, impossible.
void check_step(const kpi_evidence& k, double ceiling, plausibility_finding& f,
                std::string& what) {
  if (!k.iteration_time_ms || !k.step_floor_ms || *k.iteration_time_ms <= 0
      || *k.step_floor_ms <= 0)
    return;
  const double step_ms = *k.iteration_time_ms;
  const double plausible_ms = *k.step_floor_ms / ceiling;
  if (step_ms >= plausible_ms)
    return;
  f.factor = std::max(f.factor, plausible_ms / step_ms);
  f.impossible = f.impossible || step_ms < *k.step_floor_ms;
  what += (what.empty() ? "" : "; ")
          + fmt::format("a {:.1f} ms step runs the model's own FLOP count at {:.1f}% of peak "
                        "(its floor, every FLOP at every device's peak, is {:.1f} ms)",
                        step_ms, 100 * *k.step_floor_ms / step_ms,
                        *k.step_floor_ms);
}

std::string causes(const kpi_evidence& k, double factor) {
  std::string count = "the wrong cluster or device count (the experiment's, or the world size "
                      "the job divides its FLOPs by";
  if (k.devices && *k.devices > 0)
    count += fmt::format("; the rate fits about {:.0f} devices, not {}", *k.devices * factor,
                         *k.devices);
  return "likely causes: " + count
         + "), or the log's fork counts FLOPs differently (recomputed forward passes, or "
           "attention its own way)";
}

} // namespace

plausibility_finding check_throughput(const kpi_evidence& k, const std::string& device,
                                      const plausibility_limits& limits) {
  plausibility_finding f;
  std::string what;
  check_rate(k, device, limits.ceiling_mfu, f, what);
  check_step(k, limits.ceiling_mfu, f, what);
  if (what.empty())
    return f;
  f.plausible = false;
  f.warning = fmt::format("{} throughput: {}; x{:.2f} beyond the {:.1f}% of peak that no "
                          "published dense run exceeds (best {:.0f}%, OptiCo Fig. 5, plus {:.0f}% "
                          "for noise); {}",
                          f.impossible ? "impossible" : "implausible", what, f.factor,
                          100 * limits.ceiling_mfu, 100 * best_published_mfu,
                          100 * mfu_noise_margin, causes(k, f.factor));
  return f;
}

double step_floor_ms(const experiment_spec& exp) {
  const double peak = exp.cluster.device.peak_tflops(exp.prec);
  if (exp.platform != device_platform::gpu || peak <= 0 || exp.devices() <= 0)
    return 0;
  const auto x = make_context(exp.model, exp.cluster, exp.devices(), exp.megatron, exp.prec, {});
  return 1e3 * count_flops(x).model_causal / (exp.devices() * peak * 1e12);
}

} // namespace paratune
