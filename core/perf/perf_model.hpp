#pragma once

#include <string>
#include <vector>

#include "core/cluster_spec.hpp"
#include "core/model_spec.hpp"
#include "core/perf/memory_verdict.hpp"
#include "core/training_config.hpp"

namespace paratune {

/// Knobs of the performance model that are not read from a spec sheet.
/// The defaults are the calibrated values, global per device type (never
/// fitted per table row). The simulated cluster perturbs them to make its
/// hidden ground truth.
struct perf_calibration {
  double gemm_efficiency_scale = 1.0;   ///< multiplies the GEMM efficiency curve
  double gemm_size_shift = 1.0;         ///< shifts the curve's size breakpoints
  double scale_up_efficiency = 1.0;     ///< multiplies NVLink/ICI bus efficiency
  double scale_out_efficiency = 1.0;    ///< multiplies IB/DCN bus efficiency
  double overlap_slowdown = 1.0;        ///< multiplies the compute slowdown under overlap
  double memory_overhead_scale = 1.0;   ///< multiplies allocator/context overhead
  double straggler = 1.0;               ///< slowest-rank factor on step time (>= 1)
  /// Multiplies the device's host dispatch floor (host_layer_forward_s):
  /// 1 in the product; the tuning benchmark refits it on half the vTrain
  /// landscapes to report on the other half (docs/benchmarks.md).
  double host_dispatch_scale = 1.0;

  // The software stack the job runs on. Not perturbed: these are facts
  // about the framework version, not constants of the hardware.
  bool flash_attention = true;  ///< fused attention: no a*s^2 scores in memory or HBM traffic
  bool tp_comm_overlap = false; ///< --tp-comm-overlap (TE userbuffers) hides most TP traffic
  bool p2p_scatter_gather = false; ///< pre-core Megatron: pipeline sends 1/tp of the activation, then all-gathers
};

/// Memory of one pipeline stage's busiest GPU, in MiB.
struct memory_breakdown {
  int stage = 0;
  double weights_mib = 0;
  double gradients_mib = 0;
  double optimizer_mib = 0;
  double activations_mib = 0;   ///< in-flight micro-batches, all layers of the stage
  double logits_mib = 0;        ///< output layer and loss buffers (last stage)
  /// Without flash attention: the score-sized tensors one layer's attention
  /// backward holds at once, beyond the stored activations (a transient).
  double attention_working_mib = 0;
  double overhead_mib = 0;      ///< CUDA context, communicators, allocator, workspaces
  double total_mib = 0;
};

/// Where the iteration time goes, in seconds per iteration.
struct time_breakdown {
  double compute_s = 0;         ///< forward + backward GEMMs and element-wise work
  double recompute_s = 0;       ///< extra forward work of activation recomputation
  double tp_comm_s = 0;         ///< exposed TP/SP collectives
  double dp_comm_s = 0;         ///< exposed DP gradient reduce / param gather
  double pp_comm_s = 0;         ///< exposed pipeline point-to-point
  double ep_comm_s = 0;         ///< exposed expert all-to-all
  double cp_comm_s = 0;         ///< exposed context-parallel ring
  double bubble_s = 0;          ///< pipeline fill and drain
  double optimizer_s = 0;       ///< optimizer step
  double other_s = 0;           ///< fixed per-iteration overhead
};

/// What the model predicts for one configuration.
struct perf_prediction {
  double iteration_time_s = 0;
  double tflops_per_gpu = 0;        ///< model FLOPs (non-causal attention, Megatron <= 0.15 / Korthikanti) per GPU per second
  /// paratune's one MFU (core/model_flops_utilization.hpp): tflops_per_gpu
  /// over the device's dense bf16 peak, whatever the precision.
  double mfu = 0;
  double mfu_causal = 0;            ///< the same counting causal-halved attention (Megatron 0.16+, MaxText)
  /// tflops_per_gpu over the peak of the run's precision (the fp8 peak for
  /// fp8): the convention of published tables, compared with them, never shown.
  double mfu_full_attention = 0;
  /// Hardware FLOPs (model FLOPs plus recomputation, attention counted the
  /// same way) over the bf16 peak: at least `mfu`.
  double hfu = 0;
  double hardware_tflops_per_gpu = 0; ///< those hardware FLOPs per GPU per second
  double peak_tflops = 0;           ///< the bf16 peak `mfu` and `hfu` are counted against
  /// What the kernels run (attention's causal half under flash attention,
  /// recomputation included) over the peak of the run's precision: at most 1
  /// by construction, the check that the model is sane.
  double kernel_utilization = 0;
  double tokens_per_s_per_gpu = 0;
  std::vector<memory_breakdown> stages; ///< one per pipeline stage
  memory_breakdown peak;            ///< the most loaded stage
  double peak_memory_mib = 0;
  double memory_limit_mib = 0;
  /// The model's measured error the verdict allows for (measured_memory_error).
  memory_error_band memory_band;
  memory_verdict memory = memory_verdict::does_not_fit;
  /// Worth a run: the verdict is `fits` or `tight`.
  bool fits = false;
  time_breakdown time;
  /// "memory" when it does not fit, else the largest time part: "compute",
  /// "recompute", "tp_comm", "dp_comm", "pp_comm", "ep_comm", "cp_comm",
  /// "bubble", "optimizer" or "other".
  std::string limiting_factor;
};

/// Predicts time and memory of `c` on `world_size` devices of `cluster`.
/// The configuration should satisfy check_megatron_rules; others still get
/// finite numbers (uneven splits are spread, batches rounded up). MFU and
/// HFU are counted against the bf16 peak, kernel_utilization against the
/// peak of precision `p` (the FP8 peak for fp8).
/// Formulas, constants and measured errors: docs/performance_model.md.
perf_prediction predict(const model_spec& m, const cluster_spec& cluster,
                        int world_size, const training_config& c, precision p,
                        const perf_calibration& cal = {});

/// What makes `p` impossible, or empty: a time that is not positive and
/// finite, an MFU not positive, a kernel utilization outside (0, 1], a
/// negative memory. The model never
/// gives one for a configuration that passes check_megatron_rules; callers
/// treat one as an internal error rather than print it.
std::string impossible_result(const perf_prediction& p);

} // namespace paratune
