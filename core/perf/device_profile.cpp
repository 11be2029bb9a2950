#include "core/perf/device_profile.hpp"

#include <string_view>

namespace paratune {

namespace {

bool contains(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// A100: cuBLAS reaches ~280 of 312 TFLOP/s on large bf16 GEMMs.
device_profile a100() {
  device_profile p;
  p.gemm_efficiency = 0.88;
  p.attention_efficiency = 0.55;
  return p;
}

// H100: large GEMMs top out near 750 of 989 TFLOP/s (power and clock
// limited), and the faster compute exposes overheads more.
device_profile h100() {
  device_profile p;
  p.gemm_efficiency = 0.76;
  p.attention_efficiency = 0.5;
  p.kernel_overhead_s = 3e-6;
  return p;
}

// TPUs: XLA fuses element-wise work into the matmuls and ICI collectives
// run on dedicated DMA engines, so overlap costs little.
device_profile tpu() {
  device_profile p;
  p.gemm_efficiency = 0.8;
  p.attention_efficiency = 0.5;
  p.hbm_efficiency = 0.85;
  p.kernel_overhead_s = 1e-6;
  p.overlap_slowdown = 0.05;
  p.context_mib = 500;
  p.fragmentation = 0.05;
  return p;
}

} // namespace

const device_profile& profile_for(const device_spec& d) {
  static const device_profile a = a100(), h = h100(), t = tpu();
  if (d.tpu || contains(d.name, "TPU") || contains(d.name, "tpu"))
    return t;
  if (contains(d.name, "H100") || contains(d.name, "H200") || contains(d.name, "H800"))
    return h;
  return a;
}

} // namespace paratune
