#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace paratune {

/// Headline indicators of an Xprof profile (the "KPIs" an analyst reads
/// first: step time, duty cycle, utilisation). Every value is optional
/// because tools, versions and device kinds print different subsets.
/// Percentages are 0-100.
struct xprof_kpis {
  std::optional<double> step_time_avg_ms;
  std::optional<double> step_time_stddev_ms;
  std::optional<double> step_time_min_ms;
  std::optional<double> step_time_max_ms;

  /// Best estimate of the share of time the device was busy. The overview
  /// page's own value is used when positive; a reported 0.0 (seen in real
  /// TPU profiles) is replaced by 100 - IDLE share from op_profile, or by the
  /// step table's compute/(compute+idle).
  std::optional<double> device_duty_cycle_percent;
  /// What overview_page printed, untouched (may be 0.0 even on a busy chip).
  std::optional<double> reported_device_duty_cycle_percent;
  std::optional<double> device_idle_percent;
  std::optional<double> host_idle_percent;

  std::optional<double> mxu_utilization_percent;
  /// FLOP rate relative to peak: overview's value when positive, else the
  /// op_profile root's `flops`, else the roofline program row.
  std::optional<double> flops_utilization_percent;
  /// HBM bandwidth relative to peak, with the same fallbacks
  /// (op_profile root bandwidthUtils[0]).
  std::optional<double> hbm_bw_utilization_percent;
  std::optional<double> program_goodput_percent;
  std::optional<double> infeed_percent;

  /// TPU step breakdown averages (overview / input pipeline step table).
  std::optional<double> compute_time_avg_ms;
  std::optional<double> idle_time_avg_ms;
  /// GPU only: device_collectives_time_ms_avg.
  std::optional<double> collectives_time_avg_ms;
  /// Share of device time spent in collective ops (all-reduce, all-gather,
  /// reduce-scatter, all-to-all, collective-permute, async-collective-*),
  /// summed from op_profile; the TPU counterpart of "communication overhead".
  std::optional<double> collectives_time_percent;

  std::string device_type;  ///< "TPU v5", "TPU", "GPU", or empty.
  std::optional<int> device_core_count;
  std::optional<int> host_count;
};

/// One operation (HLO op, fused op, or framework op) with its share of time.
struct xprof_op {
  std::string name;
  std::string category;
  /// Fraction 0-1 of total profiled device time.
  double time_share = 0;
  /// Total time over all occurrences, picoseconds.
  double raw_time_ps = 0;
  std::uint64_t occurrences = 0;
  /// Fraction of peak FLOP rate (may exceed 1 in roofline's normalisation).
  std::optional<double> flops_utilization;
  /// Fraction of peak HBM bandwidth.
  std::optional<double> hbm_bw_utilization;
  /// "Compute", "HBM", "VMEM Read", ... (roofline/hlo_stats; derived for
  /// op_profile from its largest utilisation).
  std::string bound_by;
  std::optional<double> flop_rate_gflops;
  std::optional<double> hbm_bw_gibps;
  std::optional<double> roofline_efficiency;  ///< fraction
  std::string source;  ///< tool it came from: "op_profile", "roofline_model", ...
};

/// Hardware peaks from roofline_model's properties.
struct xprof_roofline_peaks {
  std::optional<double> peak_flop_rate_gflops;
  std::optional<double> peak_hbm_bw_gibps;
  std::optional<double> hbm_ridge_point;  ///< FLOP/byte
  std::string device_type;
};

/// One step of the step-time table (overview_page / input_pipeline_analyzer).
struct xprof_step {
  std::string step;
  std::optional<double> compute_ms;
  std::optional<double> idle_ms;
  std::optional<double> infeed_ms;
  std::optional<double> step_ms;  ///< sum of the parts when no total column
};

/// Self time of one op category ("convolution fusion", "all-reduce", ...),
/// summed over its ops.
struct xprof_category_time {
  std::string category;
  double time_share = 0;  ///< fraction 0-1 of total profiled device time
  double raw_time_ps = 0;
};

/// A profile read from Xprof tool outputs (directory or server), or derived
/// from a raw XSpace (xspace_profile.hpp).
struct xprof_profile {
  xprof_kpis kpis;
  xprof_roofline_peaks peaks;
  /// The top operations, longest first: op_profile when read (enriched with
  /// roofline's bound_by), else roofline_model, else hlo_stats.
  std::vector<xprof_op> top_ops;
  std::vector<xprof_op> roofline_ops;   ///< from roofline_model, longest first
  std::vector<xprof_op> hlo_ops;        ///< from hlo_stats, longest first
  std::vector<xprof_op> framework_ops;  ///< from framework_op_stats, longest first
  std::vector<xprof_step> steps;
  /// Tools read, in the order they were applied ("overview_page", ...).
  std::vector<std::string> tools;
  /// Self time by op category, longest first (raw XSpace only: the tool
  /// JSON's op lists already carry each op's category).
  std::vector<xprof_category_time> categories;
  /// Names of the planes of a raw XSpace that was read.
  std::vector<std::string> xspace_planes;
  /// True when something was missing or unreadable; `warnings` says what.
  bool partial = false;
  std::vector<std::string> warnings;
};

} // namespace paratune
