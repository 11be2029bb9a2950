#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace paratune {

/// Where a profile came from: a TPU (Xprof) or a GPU (Kineto, Megatron log).
enum class device_platform { tpu, gpu };

const char* to_string(device_platform p);

/// One operation (HLO op, fusion, CUDA kernel) as a profile reports it.
struct op_evidence {
  std::string name;
  std::string category;
  double time_share = 0;                      ///< fraction 0-1 of profiled device time
  std::optional<double> flops_utilization;    ///< fraction of peak FLOP/s
  std::optional<double> hbm_bw_utilization;   ///< fraction of peak HBM bandwidth
  std::optional<double> roofline_efficiency;  ///< fraction of the op's roofline
  /// What the tool says limits it ("Compute", "HBM", "VMEM Write",
  /// "Unknown"), or empty when the tool has no roofline (Kineto).
  std::string bound_by;
  bool collective = false;   ///< all-reduce, all-gather, NCCL, ... (by name or category)
  std::uint64_t occurrences = 0;
  double raw_time_ps = 0;
};

/// Headline indicators. Every value is optional because each source
/// reports a different subset. Percentages are 0-100.
struct kpi_evidence {
  std::optional<double> step_time_ms;
  /// A whole global-batch iteration (Megatron's "elapsed time per
  /// iteration"), the only step the step floor applies to: a Kineto
  /// ProfilerStep or an Xprof step may be one micro-batch.
  std::optional<double> iteration_time_ms;
  std::optional<double> step_time_stddev_ms;
  std::optional<double> duty_cycle_percent;        ///< device busy share
  std::optional<double> infeed_percent;            ///< waiting for input
  std::optional<double> comm_percent;              ///< collectives' share of device time
  std::optional<double> exposed_comm_percent;      ///< collectives with nothing else running
  std::optional<double> flops_utilization_percent;
  std::optional<double> hbm_bw_utilization_percent;
  std::optional<double> memory_used_mib;           ///< peak allocated or reserved
  std::optional<double> memory_limit_mib;
  std::optional<double> bubble_percent;            ///< pipeline wait share (Megatron timers)
  std::optional<double> input_percent;             ///< data loading share (Megatron timers)
  std::optional<double> tflops_per_device;
  /// What the hardware allows, from the experiment (for the plausibility
  /// check, plausibility.hpp): the device's peak at the run's precision,
  /// the step floor (the model's FLOPs at every device's peak) and the
  /// device count.
  std::optional<double> peak_tflops_per_device;
  std::optional<double> step_floor_ms;
  std::optional<int> devices;
  bool oom = false;                                ///< the run ran out of device memory
  std::string oom_message;
};

/// Everything the Analyzer reads, merged from any number of sources.
struct diagnosis_evidence {
  device_platform platform = device_platform::tpu;
  std::string device;                 ///< "TPU v5", "NVIDIA A100-PG509-200", ...
  kpi_evidence kpis;
  std::vector<op_evidence> ops;       ///< longest first
  /// Megatron timers (max over ranks, ms) of the last report: name -> ms.
  std::vector<std::pair<std::string, double>> timers_ms;
  std::vector<std::string> sources;   ///< "xprof: DIR", "kineto: FILE", ...
  bool partial = false;               ///< a source was damaged or only partly read
  std::vector<std::string> warnings;
};

} // namespace paratune
