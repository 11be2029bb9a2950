#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/telemetry/prometheus_text.hpp"
#include "core/telemetry/trial_metric.hpp"

namespace paratune {

/// The trial_metric a dcgm-exporter field reports ("DCGM_FI_DEV_POWER_USAGE"
/// -> power_w), or none for the fields paratune does not read.
std::optional<trial_metric> dcgm_field_metric(std::string_view field);

/// The dcgm-exporter fields dcgm_field_metric() knows, for a parse filter.
const prometheus_metric_filter& dcgm_fields();

/// One GPU's readings from one scrape. dcgm-exporter reports PROF fields
/// (tensor_active, graphics_engine_active) as 0..1 ratios, utilisation in
/// percent, framebuffer in MiB and power in W; they are kept as reported.
struct dcgm_gpu_sample {
  int gpu = 0;             ///< the `gpu` label: the device index on its node
  std::string uuid;        ///< `UUID`
  std::string model;       ///< `modelName`, when the exporter prints it
  std::string host;        ///< `Hostname`
  std::map<trial_metric, double> values;

  std::optional<double> value(trial_metric m) const;
};

/// Highest `gpu` label accepted: a node has far fewer.
inline constexpr int max_gpu_index = 1023;

/// The whole-GPU samples of a scrape, by ascending GPU index. Series of a
/// MIG instance (a `GPU_I_ID` label) describe a slice, not the GPU, and
/// are left out; so are series without a valid `gpu` label and non-finite
/// values (a NaN power reading says nothing).
std::vector<dcgm_gpu_sample> dcgm_gpu_samples(const prometheus_parse& scrape);

} // namespace paratune
