#pragma once

#include <array>
#include <cstdint>
#include <random>
#include <string>

#include "core/perf/perf_model.hpp"

namespace paratune {

/// The simulated cluster's hidden truth: what this cluster really does,
/// which the predictor never sees. Drawn from the cluster's name, so a
/// cluster behaves the same in every run and test and differently from its
/// siblings.
///
/// Two layers. The calibration knobs of the analytic model, perturbed
/// (collective efficiency, GEMM curve, allocator overhead, straggler).
/// Then the structure the analytic model does not represent at all, each a
/// real effect with a cause: per-degree TP collective and kernel behaviour
/// (NVSwitch contention, launch overhead of split kernels), per-micro-batch
/// kernel selection, cuBLAS wave quantization of the local GEMM shapes,
/// recomputation and optimizer costs, a per-micro-batch pipeline handshake,
/// a fixed per-iteration cost, allocator fragmentation that grows with the
/// micro-batches in flight, the caching allocator's retries and cache
/// flushes when the device is nearly full (a slowdown before the OOM), and
/// a small per-split residual (NCCL algorithm choice, autotuning luck) that
/// no model feature explains.
/// Ranges are set so that the predictor's iteration-time error against this
/// truth is 5-10% over a search space, as on the published tables
/// (docs/benchmarks.md, "Ground truth against the predictor").
struct hidden_truth {
  perf_calibration cal;              ///< the analytic model's knobs, perturbed
  std::array<double, 4> tp_comm{};   ///< exposed TP collectives x, TP 1, 2, 4, 8
  std::array<double, 4> tp_kernel{}; ///< compute x, TP 1, 2, 4, 8
  std::array<double, 4> mbs_kernel{};///< compute x, micro batch 1, 2, 4, 8 (and beyond)
  double wave_quantization = 0;      ///< weight of the GEMM wave-quantization loss
  double recompute = 1;              ///< recomputation time x
  double dp_comm = 1;                ///< exposed data-parallel collectives x
  double p2p_sync_s = 0;             ///< per micro-batch and direction at each stage boundary
  double bubble = 1;                 ///< pipeline fill and drain x
  double optimizer = 1;              ///< optimizer step x
  double fixed_s = 0;                ///< per-iteration cost (data loader, logging, timers)
  double residual = 0;               ///< log-scale sigma of the per-split residual
  double pressure_threshold = 1;     ///< memory share of the device where the allocator starts to struggle
  double pressure_slowdown = 0;      ///< time x (1 + this) at a completely full device
  double fragmentation = 0;          ///< activation share lost per extra micro-batch in flight
  double memory_offset_mib = 0;      ///< workspaces and buffers the model does not count
};

hidden_truth hidden_truth_of(const std::string& cluster_name);

/// The perturbed calibration knobs alone (hidden_truth_of(name).cal).
perf_calibration hidden_calibration(const std::string& cluster_name);

/// What a run of one configuration would truly do.
struct simulated_outcome {
  perf_prediction truth;        ///< time and memory of the hidden truth
  bool out_of_memory = false;   ///< the true peak exceeds the device
  int oom_stage = -1;           ///< the first stage that runs out
};

simulated_outcome simulate(const model_spec& m, const cluster_spec& cluster, int world_size,
                           const training_config& c, precision p);

/// An infrastructure failure injected into one run: an NCCL watchdog
/// timeout or a lost node, at an iteration after warm-up.
enum class injected_failure_kind { none, nccl_timeout, node_failure };

struct injected_failure {
  injected_failure_kind kind = injected_failure_kind::none;
  int64_t iteration = 0;
  int rank = 0;
};

/// One iteration as the run would log it.
struct simulated_iteration {
  int64_t iteration = 0;
  double elapsed_ms = 0;      ///< warm-up and 1% run-to-run noise included
  double tflops_per_gpu = 0;  ///< Megatron's formula over the elapsed time
  double gpu_util_pct = 0;    ///< what nvidia-smi would sample
  double noise = 0;           ///< a spare N(0, 1%) draw (the loss curve)
};

/// One launch of a simulated configuration: the noise and injected failures
/// that paratune-sim prints, without the text, so that in-process users
/// (bench/tuning_quality) see exactly what the tuner sees through the log.
/// Deterministic in the seed.
class simulated_run {
public:
  /// Run-to-run variation of an iteration's time (1% sigma).
  static constexpr double noise_sigma = 0.01;

  simulated_run(const simulated_outcome& outcome, uint64_t seed, double failure_rate,
                int train_iters, int world_size);

  const injected_failure& failure() const { return failure_; }
  /// The next iteration, 1-based. The first builds CUDA graphs, NCCL rings
  /// and allocator pools (6x slower), the second still warms caches (1.25x).
  simulated_iteration next();

private:
  const simulated_outcome& outcome_;
  std::mt19937_64 rng_;
  std::normal_distribution<double> noise_{0.0, noise_sigma};
  injected_failure failure_;
  int64_t iteration_ = 0;
  double gpu_util_pct_ = 0;
};

/// A deterministic 64-bit mix (splitmix64), for seeding from names.
uint64_t mix64(uint64_t x);
uint64_t hash_name(const std::string& s);

} // namespace paratune
