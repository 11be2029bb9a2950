#pragma once

#include <string>

#include "core/diagnosis/diagnosis_evidence.hpp"
#include "core/diagnosis/experiment_spec.hpp"

namespace paratune {

/// The highest model FLOPs utilisation among the published runs the
/// repository carries (data/perf): OptiCo Fig. 5, Llama3-8B at TP 1, PP 2 on
/// one node of 8 A100-80GB, 210.86 TFLOP/s per GPU, MFU 0.68. The other
/// tables stay lower: Korthikanti et al. 56.3% (1T, sequence parallel plus
/// selective recompute), SC21 Table 1 52% (530B and 1T), vTrain 52% even
/// counting the recomputed forward (175B on 512 A100), Megatron-Core r0.8
/// 49% (16B on 192 H100).
inline constexpr double best_published_mfu = 0.68;

/// Relative margin over the best published MFU before a measurement is
/// called implausible. The tables round (OptiCo to whole percents) and
/// report averages over many iterations, while a log's per-interval average
/// moves a few percent from one interval to the next; newer kernels than
/// the papers used (FlashAttention 3, cuDNN fused attention) add a few more.
/// Ten percent covers both; more than that beyond every published dense run
/// is more likely a miscount than a record.
inline constexpr double mfu_noise_margin = 0.10;

struct plausibility_limits {
  /// 0.68 * 1.10 = 0.748 of the device's peak.
  double ceiling_mfu = best_published_mfu * (1 + mfu_noise_margin);
};

/// What the check concluded about a measured throughput.
struct plausibility_finding {
  bool plausible = true;
  /// Above the device's peak, or a step faster than the model's FLOPs at
  /// the peak of every device: not a fast run but a wrong count.
  bool impossible = false;
  double mfu = 0;     ///< measured TFLOP/s per device / peak, 0 when unknown
  double factor = 1;  ///< measurement / the most that is plausible (> 1 when flagged)
  std::string warning;  ///< empty when plausible
};

/// Checks the job's reported TFLOP/s per device against the peak
/// (`kpis.peak_tflops_per_device`) and its global-batch iteration time
/// against the step floor (`kpis.step_floor_ms`); either missing skips that
/// half. Only the
/// rate a job reports is checked: a profiler's FLOP utilisation (Xprof's
/// is relative to each op's roofline) measures the hardware, not a count.
/// `device` names the device in the warning.
plausibility_finding check_throughput(const kpi_evidence& k, const std::string& device,
                                      const plausibility_limits& limits = {});

/// The shortest step the experiment's model can take on its GPUs: the
/// fewest FLOPs any fork counts for it (causal attention, no recompute) at
/// the peak of every device. 0 for TPU experiments, whose work is not a
/// Megatron configuration.
double step_floor_ms(const experiment_spec& exp);

} // namespace paratune
