#include "sim/gpu/simulated_cluster.hpp"

#include <algorithm>
#include <cmath>

#include "core/perf/memory_model.hpp"
#include "core/perf/perf_context.hpp"

namespace paratune {

uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

uint64_t hash_name(const std::string& s) {
  uint64_t h = 1469598103934665603ULL; // FNV-1a, then mixed
  for (unsigned char c : s)
    h = (h ^ c) * 1099511628211ULL;
  return mix64(h);
}

namespace {

double unit(uint64_t seed, uint64_t i) {
  return double(mix64(seed + 0x1000 * i) >> 11) / double(1ULL << 53);
}

/// Uniform in [lo, hi) from the i-th draw of a named stream.
double draw(uint64_t seed, int i, double lo, double hi) {
  return lo + (hi - lo) * unit(seed, uint64_t(i));
}

/// A standard normal from the i-th pair of draws (Box-Muller).
double normal(uint64_t seed, uint64_t i) {
  const double u1 = std::max(1e-12, unit(seed, 2 * i));
  const double u2 = unit(seed, 2 * i + 1);
  return std::sqrt(-2 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

/// log2 of a power of two, clamped to an index of a 4-entry table.
int degree_index(int v) {
  int i = 0;
  while (v > 1 && i < 3) {
    v /= 2;
    ++i;
  }
  return i;
}

void draw_table(std::array<double, 4>& t, uint64_t seed, int first, double lo, double hi) {
  for (int i = 0; i < 4; ++i)
    t[i] = draw(seed, first + i, lo, hi);
}

/// Scales a table to a geometric mean of 1: it then says how the degrees
/// differ from each other, and the overall level stays with the GEMM
/// efficiency knob.
void relative(std::array<double, 4>& t) {
  double log_sum = 0;
  for (double v : t)
    log_sum += std::log(v);
  const double mean = std::exp(log_sum / 4);
  for (double& v : t)
    v /= mean;
}

} // namespace

hidden_truth hidden_truth_of(const std::string& cluster_name) {
  const uint64_t seed = hash_name(cluster_name);
  hidden_truth h;
  // The analytic model's own knobs, about its calibrated values.
  h.cal.gemm_efficiency_scale = draw(seed, 1, 0.95, 1.05);
  h.cal.gemm_size_shift = draw(seed, 2, 0.7, 1.5);
  h.cal.scale_up_efficiency = draw(seed, 3, 0.8, 1.15);
  h.cal.scale_out_efficiency = draw(seed, 4, 0.75, 1.15);
  h.cal.overlap_slowdown = draw(seed, 5, 0.7, 1.5);
  h.cal.memory_overhead_scale = draw(seed, 6, 0.9, 1.5);
  h.cal.straggler = draw(seed, 7, 1.0, 1.02);
  // What the model lacks. TP 1 has neither collectives nor split kernels:
  // its entries are the reference.
  draw_table(h.tp_comm, seed, 10, 0.75, 1.5);
  h.tp_comm[0] = 1;
  draw_table(h.tp_kernel, seed, 20, 0.93, 1.08);
  relative(h.tp_kernel);
  draw_table(h.mbs_kernel, seed, 30, 0.93, 1.07);
  relative(h.mbs_kernel);
  h.wave_quantization = draw(seed, 40, 0.08, 0.2);
  h.recompute = draw(seed, 41, 0.8, 1.25);
  h.dp_comm = draw(seed, 42, 0.75, 1.4);
  h.p2p_sync_s = draw(seed, 43, 0.2e-3, 1.5e-3);
  h.bubble = draw(seed, 44, 0.9, 1.2);
  h.optimizer = draw(seed, 45, 0.8, 1.3);
  h.fixed_s = draw(seed, 46, 0.0, 0.06);
  h.residual = draw(seed, 47, 0.01, 0.02);
  h.fragmentation = draw(seed, 48, 0.04, 0.12);
  h.memory_offset_mib = draw(seed, 49, 300, 1500);
  h.pressure_threshold = draw(seed, 50, 0.86, 0.92);
  h.pressure_slowdown = draw(seed, 51, 0.1, 0.25);
  return h;
}

perf_calibration hidden_calibration(const std::string& cluster_name) {
  return hidden_truth_of(cluster_name).cal;
}

namespace {

constexpr double a100_sms = 108;
constexpr double tile = 128;
/// The wave loss of the large GEMMs the model was calibrated on (7B-175B
/// models at TP 1-8): the model's efficiency already includes it.
constexpr double calibrated_wave_loss = 0.03;

/// Share of the SM-waves a GEMM's output tiles actually fill: a GEMM of
/// 1.1 waves pays for 2. The analytic model's efficiency curve is smooth in
/// the sizes; real cuBLAS is not. `group` GEMMs of one grouped kernel (the
/// local experts) share their waves.
double wave_fill(double m, double n, double group = 1) {
  const double tiles = group * std::ceil(m / tile) * std::ceil(n / tile);
  const double waves = std::ceil(tiles / a100_sms);
  return tiles / (waves * a100_sms);
}

/// Extra compute time of one layer's local GEMMs from wave quantization,
/// as a fraction (forward, data-gradient and weight-gradient shapes,
/// weighted by their FLOPs).
double wave_loss(const perf_context& x) {
  struct gemm { double m, n, k, group; };
  const double up = (x.swiglu ? 2 : 1) * (x.moe ? x.moe_ffn : x.ffn);
  const double down = x.moe ? x.moe_ffn : x.ffn;
  const double experts = x.moe ? std::max(1.0, x.experts / x.ep) : 1;
  const double rows = x.moe ? x.tokens * x.topk * x.ep / std::max(1.0, x.experts) : x.tokens;
  const gemm gemms[] = {{x.tokens, x.q / x.tp + 2 * x.kv_local, x.h, 1},
                        {x.tokens, x.h, x.q / x.tp, 1},
                        {rows, up / x.tp, x.h, experts},
                        {rows, x.h, down / x.tp, experts}};
  double flops = 0, lost = 0;
  for (const auto& g : gemms) {
    const double f = 2 * g.m * g.n * g.k * g.group;
    // forward [m,n], data grad [m,k], weight grad [k,n]
    for (double fill : {wave_fill(g.m, g.n, g.group), wave_fill(g.m, g.k, g.group),
                        wave_fill(g.k, g.n, g.group)}) {
      flops += f;
      lost += f * (1 / fill - 1);
    }
  }
  return flops > 0 ? lost / flops : 0;
}

/// A standard normal per parallel split (tp, pp, cp, ep, vpp, micro batch,
/// recomputation): the same split always draws the same value.
double split_residual(uint64_t seed, const training_config& c) {
  uint64_t k = seed;
  for (int v : {c.tp, c.pp, c.cp, c.ep, c.vpp, c.mbs, int(c.recompute), c.recompute_layers})
    k = mix64(k ^ uint64_t(v + 0x51));
  return std::clamp(normal(k, 0), -2.5, 2.5);
}

double total(const time_breakdown& t) {
  return t.compute_s + t.recompute_s + t.tp_comm_s + t.dp_comm_s + t.pp_comm_s
         + t.ep_comm_s + t.cp_comm_s + t.bubble_s + t.optimizer_s + t.other_s;
}

/// Applies the structure the analytic model lacks to its time breakdown;
/// returns the true iteration time.
double true_time(const perf_context& x, const hidden_truth& h, uint64_t seed,
                 time_breakdown& t) {
  const auto& c = *x.config;
  const double kernel = h.tp_kernel[degree_index(x.tp)] * h.mbs_kernel[degree_index(x.mbs)]
                        * (1 + h.wave_quantization * (wave_loss(x) - calibrated_wave_loss));
  t.compute_s *= kernel;
  t.recompute_s *= kernel * h.recompute;
  t.bubble_s *= kernel * h.bubble;
  t.tp_comm_s *= h.tp_comm[degree_index(x.tp)];
  t.dp_comm_s *= h.dp_comm;
  t.optimizer_s *= h.optimizer;
  if (x.pp > 1) // a send/recv handshake per micro-batch, chunk and direction
    t.pp_comm_s += 2 * x.micro_batches * x.vpp * h.p2p_sync_s;
  t.other_s += h.fixed_s;
  const double base = total(t);
  const double residual = std::exp(h.residual * split_residual(seed, c)) - 1;
  t.other_s += base * residual;
  return base * (1 + residual);
}

/// Allocator fragmentation grows with the micro-batches a stage holds (the
/// OptiCo PP 8 OOM of docs/performance_model.md); workspaces add a fixed
/// offset.
void true_memory(const perf_context& x, const hidden_truth& h, perf_prediction& p) {
  for (auto& s : p.stages) {
    const double in_flight = in_flight_micro_batches(x, s.stage);
    const double extra = h.memory_offset_mib
                         + h.fragmentation * s.activations_mib * (1 - 1 / std::max(1.0, in_flight));
    s.overhead_mib += extra;
    s.total_mib += extra;
  }
  p.peak = *std::max_element(p.stages.begin(), p.stages.end(),
                             [](const auto& a, const auto& b) { return a.total_mib < b.total_mib; });
  p.peak_memory_mib = p.peak.total_mib;
  p.fits = p.peak_memory_mib <= p.memory_limit_mib;
}

/// The caching allocator near a full device: failed cudaMalloc calls
/// free the cache and retry, synchronising the stream. Nothing above the
/// threshold, quadratic to `pressure_slowdown` at 100%. A fraction of the
/// iteration time.
double memory_pressure(const hidden_truth& h, const perf_prediction& p) {
  const double used = p.peak_memory_mib / p.memory_limit_mib;
  if (used <= h.pressure_threshold)
    return 0;
  const double over = std::min(1.0, (used - h.pressure_threshold) / (1 - h.pressure_threshold));
  return h.pressure_slowdown * over * over;
}

void rescale_rates(perf_prediction& p, double new_time) {
  const double f = p.iteration_time_s / new_time;
  p.iteration_time_s = new_time;
  p.tflops_per_gpu *= f;
  p.mfu *= f;
  p.mfu_causal *= f;
  p.hfu *= f;
  p.hardware_tflops_per_gpu *= f;
  p.kernel_utilization *= f;
  p.tokens_per_s_per_gpu *= f;
}

} // namespace

simulated_outcome simulate(const model_spec& m, const cluster_spec& cluster, int world_size,
                           const training_config& c, precision p) {
  const hidden_truth h = hidden_truth_of(cluster.name);
  simulated_outcome out;
  out.truth = predict(m, cluster, world_size, c, p, h.cal);
  const perf_context x = make_context(m, cluster, world_size, c, p, h.cal);
  true_memory(x, h, out.truth);
  double time = true_time(x, h, hash_name(cluster.name), out.truth.time);
  const double pressure = memory_pressure(h, out.truth) * time;
  out.truth.time.other_s += pressure;
  rescale_rates(out.truth, time + pressure);
  for (const auto& s : out.truth.stages)
    if (s.total_mib > out.truth.memory_limit_mib) {
      out.out_of_memory = true;
      out.oom_stage = s.stage;
      break;
    }
  if (out.out_of_memory)
    out.truth.limiting_factor = "memory";
  return out;
}

simulated_run::simulated_run(const simulated_outcome& outcome, uint64_t seed,
                             double failure_rate, int train_iters, int world_size)
  : outcome_(outcome), rng_(mix64(seed)) {
  std::uniform_real_distribution<double> u(0, 1);
  const double x = u(rng_);
  if (x < failure_rate * 2 / 3)
    failure_.kind = injected_failure_kind::nccl_timeout;
  else if (x < failure_rate)
    failure_.kind = injected_failure_kind::node_failure;
  failure_.iteration = 3 + int64_t(u(rng_) * std::max(1, train_iters - 3));
  failure_.rank = int(u(rng_) * std::max(1, world_size));
  const auto& t = outcome_.truth;
  gpu_util_pct_ = 100 * std::clamp(1.0 - (t.time.bubble_s + t.time.other_s) / t.iteration_time_s,
                                   0.05, 1.0);
}

simulated_iteration simulated_run::next() {
  simulated_iteration s;
  s.iteration = ++iteration_;
  const double warm = s.iteration == 1 ? 6.0 : s.iteration == 2 ? 1.25 : 1.0;
  const double base_ms = outcome_.truth.iteration_time_s * 1000;
  s.elapsed_ms = base_ms * warm * (1.0 + noise_(rng_));
  s.tflops_per_gpu = outcome_.truth.tflops_per_gpu * base_ms / s.elapsed_ms;
  s.noise = noise_(rng_);
  s.gpu_util_pct = std::clamp(gpu_util_pct_ * (1 + noise_(rng_)), 0.0, 100.0);
  return s;
}

} // namespace paratune
