#pragma once

#include <string>

#include "core/cluster_spec.hpp"

namespace paratune {

// paratune's one MFU, the number `predict`, `plan`, `tune`, `report`, `ask`
// and the dashboard show: model FLOPs per second per GPU over the device's
// peak dense bf16 FLOP/s. Model FLOPs are Megatron-LM's
// num_floating_point_operations of the r0.8..0.15 era, the count behind the
// "throughput per GPU (TFLOP/s/GPU)" its logs print: attention counted whole
// (not causal-halved), recomputation not counted (model_flops_noncausal in
// core/perf/flops.hpp). The peak is the bf16 one whatever the precision, so
// an fp8 run shows its gain as a higher MFU. Counted whole, attention can
// take MFU past 1 at long sequences; the model's own bound is
// perf_prediction::kernel_utilization.

/// The peak MFU is counted against: dense bf16 TFLOP/s.
double mfu_peak_tflops(const device_spec& device);

/// `tflops_per_gpu` (model FLOPs, as above) over `peak_tflops`; 0 when the
/// peak is not positive.
double model_flops_utilization(double tflops_per_gpu, double peak_tflops);

/// The same against `device`'s bf16 peak.
double model_flops_utilization(double tflops_per_gpu, const device_spec& device);

/// MFU as people read it: "75.7%" (one decimal); "-" when not positive or
/// not finite. JSON keeps the fraction.
std::string mfu_text(double mfu);

} // namespace paratune
