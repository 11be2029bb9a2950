#pragma once

#include <string>

namespace paratune {

/// Numeric precision of a training run.
enum class precision { bf16, fp16, fp8 };

const char* to_string(precision p);
/// Parses "bf16", "fp16" or "fp8"; returns false for anything else.
bool parse_precision(const std::string& text, precision& out);

/// One accelerator type. Peaks as in hardware_peaks.csv (data/perf/README.md).
struct device_spec {
  std::string name;              ///< "A100-SXM4-80GB"
  double peak_tflops_16 = 0;     ///< dense bf16/fp16 TFLOP/s
  double peak_tflops_fp8 = 0;    ///< dense fp8 TFLOP/s, 0 when unsupported
  double hbm_gib = 0;            ///< device memory in GiB as the allocator sees it
  double hbm_gbps = 0;           ///< HBM bandwidth, GB/s
  bool tpu = false;
  /// CUDA compute capability (8.0 A100, 9.0 H100/H200, 10.0 B200); 0 for a
  /// TPU or when the cluster file does not say. Megatron-LM's start-up
  /// checks read its major number (get_device_arch_version()).
  double compute_capability = 0;

  double peak_tflops(precision p) const;
};

/// A link class: latency and per-GPU unidirectional bandwidth.
struct link_spec {
  std::string name;              ///< "NVLink3", "IB-HDR", "ICI", "DCN"
  double gbps = 0;               ///< GB/s per chip per direction
  double latency_us = 0;
};

/// A homogeneous cluster: nodes (or TPU hosts) of `devices_per_node`
/// accelerators joined by a scale-up link, nodes joined by a scale-out link.
struct cluster_spec {
  std::string name;              ///< catalog name, "dgx-a100-80g"
  device_spec device;
  int devices_per_node = 8;
  int max_nodes = 0;             ///< 0 = unbounded
  link_spec scale_up;            ///< NVLink / ICI
  link_spec scale_out;           ///< InfiniBand / DCN
  /// TPU only: chips per slice along the ICI torus, e.g. "16x16".
  std::string ici_topology;

  /// Memory per device in MiB.
  double memory_mib() const { return device.hbm_gib * 1024.0; }
};

} // namespace paratune
