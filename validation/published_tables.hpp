#pragma once

// The measured rows of the published tables in data/perf/, as
// plain data: the configuration each table states and what was measured.
// validation/perf_tables reads them; model_validation compares the
// performance model with them.

#include <string>
#include <vector>

#include "core/megatron_args.hpp"
#include "core/model_spec.hpp"
#include "core/cluster_spec.hpp"
#include "core/training_config.hpp"
#include "core/tpu/mesh_workload.hpp"
#include "core/tpu/tpu_mesh.hpp"
#include "core/tpu/tpu_topology.hpp"

namespace paratune {

/// One run of a published table: the model, configuration and job size.
struct published_run {
  std::string label;        ///< how the table names it: "175B", "3.6B"
  model_spec model;
  training_config config;
  int gpus = 0;
};

/// Narayanan et al. SC21 Table 1 (A100, full recompute, fp16).
struct sc21_row {
  published_run run;
  double tflops_per_gpu = 0;   ///< counted with the 96 B s l h^2 (...) formula
};

/// Korthikanti et al. 2022: Table 5 times and Figure 1 memory (A100, DP 1).
struct korthikanti_row {
  published_run run;           ///< recompute and sp left at their defaults
  double time_full_s = 0;      ///< full recompute
  double time_sel_s = 0;       ///< sequence parallel + selective recompute
  double states_gib = 0;       ///< weights + gradients + optimizer per GPU
  double act_none_gib = 0;     ///< activations, no recompute
  double act_sel_gib = 0;      ///< activations, sequence parallel + selective
};

/// Megatron-Core r0.8 weak scaling on H100 (README model table).
struct megatron_core_row {
  published_run run;
  double mfu = 0;              ///< measured TFLOP/s over the 989 peak
};

/// OptiCo Figure 5: Llama3-8B on 8 A100-80GB, including OOM failures.
struct optico_row {
  published_run run;
  bool ran = false;            ///< "success" (else out of memory)
  double mem_max_mib = 0;      ///< peak memory of the runs that ran
  double tflops = 0;           ///< OptiCo's 6 * params * tokens/s per GPU
};

/// vTrain multi-node ground truth (A100, Megatron-DeepSpeed, full recompute).
struct vtrain_row {
  published_run run;
  double iteration_time_s = 0;
};

/// One MaxText run on TPU, read as a mesh-model job (maxtext_table.hpp).
struct maxtext_row {
  std::string label;        ///< "v5e 16B on v5e-256 x4"
  std::string cluster_ref;  ///< "tpu-v5e"
  model_spec model;
  tpu_slice slice;
  tpu_mesh ici, dcn;
  mesh_workload workload;
  double mfu = 0;           ///< measured, 0-1, attention counted whole
};

/// One Megatron-LM functional test with its golden peak memory.
struct megatron_ci_row {
  published_run run;
  std::string hw;              ///< "h100", "a100"
  precision prec = precision::bf16;
  bool flash_attention = true; ///< false for the unfused and local attention backends
  double peak_allocated_gib = 0;  ///< torch max allocated bytes of the logging rank
};

/// A row left out, and why (its layout or device cannot be expressed).
struct skipped_row {
  std::string label;
  std::string reason;
};

/// The golden-values summary: the rows compared and the rows skipped.
struct megatron_ci_table {
  std::vector<megatron_ci_row> rows;
  std::vector<skipped_row> skipped;
};

/// One of paratune's own Megatron-LM runs on one H100 (data/h100_1gpu/): the
/// configuration its command line describes and what its log measured. A run
/// that ran out of device memory before its first iteration has no times:
/// `out_of_memory` holds torch's message and the numbers stay 0.
struct h100_megatron_run {
  std::string label;            ///< the files' stem: "s2048_mbs4_selective"
  megatron_launch launch;       ///< read from <label>.cmd
  std::string out_of_memory;    ///< torch's OutOfMemoryError text, when it did not fit
  double iteration_ms = 0;      ///< median over the steady iterations
  int steady_iterations = 0;    ///< the iterations after the two warm-up ones
  double peak_allocated_mib = 0;  ///< torch max allocated, the last memory report
  double tokens_per_s = 0;      ///< global batch x sequence / iteration time
};

/// Every table validate-model checks.
struct published_tables {
  std::vector<sc21_row> sc21;
  std::vector<korthikanti_row> korthikanti;
  std::vector<megatron_core_row> megatron_core;
  std::vector<optico_row> optico;
  std::vector<vtrain_row> vtrain;
  std::vector<maxtext_row> maxtext;
  megatron_ci_table megatron_ci;
  std::vector<h100_megatron_run> h100_megatron;
};

} // namespace paratune
