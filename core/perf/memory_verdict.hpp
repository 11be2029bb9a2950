#pragma once

#include <string>
#include <string_view>

namespace paratune {

/// How far a measured peak falls from the model's peak estimate, as a
/// fraction of the estimate (measured / predicted - 1): the model's error
/// as measured, which the fit verdict allows for instead of a flat factor.
struct memory_error_band {
  double low = 0;   ///< the most the model over-estimates (a negative fraction)
  double high = 0;  ///< the most it under-estimates (positive)
  int runs = 0;     ///< measured runs the band was taken from
};

/// The band measured by `paratune validate-model` over Megatron-LM's golden
/// values (data/perf/megatron_ci_golden_values_summary.csv): the 10th and
/// 90th percentile of measured / predicted peak - 1 over the runs whose
/// measured peak is at least `band_min_measured_gib`, where a configuration
/// comes near a device's limit (below it, the CUDA context and workspaces,
/// a fixed amount, dominate the error). validation/megatron_ci_table
/// computes it from the table, and a test holds this copy to it.
inline constexpr memory_error_band measured_memory_error{-0.155, 0.191, 7};
inline constexpr double band_min_measured_gib = 16;

/// The fit verdict over the band: `fits` when the peak fits even if the
/// model under-estimates it by the band's high end; `does_not_fit` when it
/// does not even if the model over-estimates it by the low end; `tight` in
/// between, where only a run can tell.
enum class memory_verdict { fits, tight, does_not_fit };

memory_verdict judge_memory(double peak_mib, double limit_mib, const memory_error_band& band);

/// "fits", "tight", "does not fit".
std::string_view memory_verdict_words(memory_verdict v);

/// The verdict with its numbers, one line: "tight (peak 76000 MiB; the
/// model's measured error, -10%..+31%, puts the real peak at 68400..99408
/// MiB, around the 81920 MiB of the device: only a run can tell)".
std::string describe_memory(double peak_mib, double limit_mib, const memory_error_band& band);

} // namespace paratune
