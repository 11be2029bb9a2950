#include "sim/gpu/independent_truth.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/model_flops_utilization.hpp"
#include "core/perf/flops.hpp"
#include "core/perf/perf_context.hpp"

namespace paratune {

namespace {

double truth_unit(uint64_t seed, int i) {
  return double(mix64(seed + 0x9e37 * uint64_t(i)) >> 11) / double(1ULL << 53);
}

double truth_draw(uint64_t seed, int i, double lo, double hi) {
  return lo + (hi - lo) * truth_unit(seed, i);
}

} // namespace

independent_hardware independent_hardware_of(const std::string& cluster_name) {
  // A stream of its own: the perturbed-model truth of the same name draws
  // from hash_name(name) directly.
  const uint64_t seed = mix64(hash_name(cluster_name) ^ 0x696e646570ULL);
  independent_hardware h;
  h.gemm_peak_share = truth_draw(seed, 1, 0.68, 0.80);
  h.gemm_half_size = truth_draw(seed, 2, 96, 320);
  h.tile_n = truth_unit(seed, 3) < 0.5 ? 128 : 256;
  h.nccl_switch_bytes = truth_draw(seed, 4, 256 << 10, 4 << 20);
  h.ll_bandwidth_share = truth_draw(seed, 5, 0.35, 0.55);
  h.link_efficiency = truth_draw(seed, 6, 0.7, 0.88);
  h.grad_overlap = truth_draw(seed, 7, 0.55, 0.85);
  h.kernel_launch_s = truth_draw(seed, 8, 4e-6, 9e-6);
  h.fixed_s = truth_draw(seed, 9, 0.01, 0.06);
  h.context_mib = truth_draw(seed, 10, 1800, 3200);
  h.fragmentation = truth_draw(seed, 11, 0.03, 0.08);
  h.cliff_share = truth_draw(seed, 12, 0.90, 0.95);
  h.cliff_slowdown = truth_draw(seed, 13, 0.2, 0.5);
  return h;
}

namespace {

constexpr double mib = 1024.0 * 1024.0;

/// The job as the roofline sees it: local shapes per GPU.
struct layout {
  double h, q, kv, ffn, moe_ffn, experts, topk, vocab, layers;
  bool swiglu, moe;
  int tp, pp, cp, ep, vpp, dp, m;
  double mbs, seq, bytes;
  bool sp;
  const training_config* c;
  const cluster_spec* cl;
  int world;
};

layout layout_of(const model_spec& md, const cluster_spec& cl, int world,
                 const training_config& c, precision p) {
  layout l{};
  l.h = md.hidden;
  l.q = double(md.heads) * md.head_size();
  l.kv = double(md.kv_heads > 0 ? md.kv_heads : md.heads) * md.head_size();
  l.ffn = md.ffn;
  l.moe_ffn = md.moe_ffn;
  l.experts = md.experts;
  l.topk = md.topk;
  l.vocab = double(md.padded_vocab(c.tp));
  l.layers = md.layers;
  l.swiglu = md.swiglu;
  l.moe = md.is_moe();
  l.tp = c.tp;
  l.pp = c.pp;
  l.cp = c.cp;
  l.ep = c.ep;
  l.vpp = std::max(1, c.vpp);
  l.dp = std::max(1, c.data_parallel(world));
  l.m = std::max(1, c.micro_batches(world));
  l.mbs = c.mbs;
  l.seq = c.seq;
  l.bytes = p == precision::fp8 ? 1 : 2;
  l.sp = c.sp;
  l.c = &c;
  l.cl = &cl;
  l.world = world;
  return l;
}

/// Share of the SM waves a GEMM's output tiles fill (a GEMM of 1.1 waves
/// pays for 2).
double wave_fill(const independent_hardware& hw, double m, double n, double group) {
  const double tiles = group * std::ceil(m / hw.tile_m) * std::ceil(n / hw.tile_n);
  const double waves = std::ceil(tiles / hw.sms);
  return tiles / (waves * hw.sms);
}

/// Seconds of one GEMM [m x k] x [k x n] (times `group` for grouped
/// experts): the roofline peak, discounted by a small inner dimension and
/// by the waves it leaves half empty.
double gemm_s(const independent_hardware& hw, double peak, double m, double n, double k,
              double group = 1) {
  if (m <= 0 || n <= 0 || k <= 0)
    return 0;
  const double share = hw.gemm_peak_share * k / (k + hw.gemm_half_size);
  const double flops = 2 * m * n * k * group;
  return flops / (peak * share * wave_fill(hw, m, n, group)) + hw.kernel_launch_s;
}

/// Forward seconds of one transformer layer for one micro-batch on one GPU.
double layer_forward_s(const layout& l, const independent_hardware& hw, double peak,
                       double hbm_bps) {
  const double tokens = l.mbs * l.seq / l.cp;
  double s = 0;
  s += gemm_s(hw, peak, tokens, (l.q + 2 * l.kv) / l.tp, l.h);  // QKV
  s += gemm_s(hw, peak, tokens, l.h, l.q / l.tp);                // attention output
  // Flash attention: causal, so half the score work, at a lower share of
  // the peak than a plain GEMM.
  const double heads_local = l.q / l.tp;
  s += 2 * 2 * tokens * (l.seq) * heads_local * 0.5 / (peak * hw.gemm_peak_share * 0.7);
  if (l.moe) {
    const double rows = tokens * l.topk * l.ep / std::max(1.0, l.experts);
    const double local = std::max(1.0, l.experts / l.ep);
    s += gemm_s(hw, peak, rows, (l.swiglu ? 2 : 1) * l.moe_ffn / l.tp, l.h, local);
    s += gemm_s(hw, peak, rows, l.h, l.moe_ffn / l.tp, local);
    s += 3 * hw.kernel_launch_s * local;  // router, permute, unpermute per expert
  } else {
    s += gemm_s(hw, peak, tokens, (l.swiglu ? 2 : 1) * l.ffn / l.tp, l.h);
    s += gemm_s(hw, peak, tokens, l.h, l.ffn / l.tp);
  }
  // Norms, rotary, activation, dropout-free residuals: memory bound,
  // about 12 reads and writes of the hidden state.
  s += 12 * tokens * l.h / (l.sp ? l.tp : 1) * l.bytes / hbm_bps;
  return s;
}

/// Seconds of one collective of `bytes` per GPU over `ranks` GPUs. NCCL
/// picks its protocol by message size: below the switch the low-latency
/// protocol (little latency, a fraction of the bandwidth), above it the
/// ring (full bandwidth, a latency per step), so time jumps at the switch.
double collective_s(const independent_hardware& hw, const link_spec& link, double bytes,
                    int ranks, double volume_factor) {
  if (ranks <= 1 || bytes <= 0)
    return 0;
  const double bw = link.gbps * 1e9 * hw.link_efficiency;
  const double steps = volume_factor * (ranks - 1);
  const double lat = link.latency_us * 1e-6;
  const double moved = volume_factor * (ranks - 1) / ranks * bytes;
  if (bytes < hw.nccl_switch_bytes)
    return moved / (bw * hw.ll_bandwidth_share) + 0.5 * lat * std::log2(double(ranks)) + 4e-6;
  return moved / bw + steps * lat + 12e-6;
}

/// The link a group of `span` consecutive ranks talks over.
const link_spec& link_for(const layout& l, int span) {
  return span <= l.cl->devices_per_node ? l.cl->scale_up : l.cl->scale_out;
}

/// Parameters of one transformer layer (all experts) and of the embedding.
double layer_params(const layout& l) {
  const double attn = l.h * (l.q + 2 * l.kv) + l.q * l.h;
  const double mlp = l.moe ? l.experts * (l.swiglu ? 3 : 2) * l.h * l.moe_ffn + l.h * l.experts
                           : (l.swiglu ? 3 : 2) * l.h * l.ffn;
  return attn + mlp + 2 * l.h;
}

/// Transformer layers per pipeline stage: the first and last stages as
/// --decoder-first/last-pipeline-num-layers set them, the rest even.
std::vector<double> stage_layers(const layout& l) {
  std::vector<double> n(size_t(l.pp), l.layers / l.pp);
  if (l.pp < 2)
    return n;
  const double first = l.c->first_pp_layers, last = l.c->last_pp_layers;
  if (first <= 0 && last <= 0)
    return n;
  const int middle = l.pp - (first > 0) - (last > 0);
  const double rest = l.layers - std::max(0.0, first) - std::max(0.0, last);
  for (int i = 0; i < l.pp; ++i)
    n[size_t(i)] = middle > 0 ? rest / middle : 0;
  if (first > 0)
    n.front() = first;
  if (last > 0)
    n.back() = last;
  return n;
}

/// Parameters one GPU holds for `layers` of its stage (experts split over
/// ep), plus the embedding or the output layer at the ends.
double local_params(const layout& l, double layers, bool end_stage) {
  const double per_layer = layer_params(l);
  const double expert_part = l.moe ? l.experts * (l.swiglu ? 3 : 2) * l.h * l.moe_ffn : 0;
  const double dense_part = per_layer - expert_part;
  const double layer = dense_part / l.tp + expert_part / (l.tp * l.ep);
  return layer * layers + (end_stage ? l.vocab * l.h / l.tp : 0);
}

struct stage_memory {
  double static_mib = 0, activations_mib = 0, logits_mib = 0;
};

/// Bytes of activations one layer keeps for one micro-batch (flash
/// attention: no score matrix), by recomputation mode.
double layer_activation_bytes(const layout& l) {
  const double sbh = l.mbs * l.seq / l.cp * l.h;
  switch (l.c->recompute) {
    case recompute_mode::full:
      return sbh * l.bytes;  // only the layer input is kept
    case recompute_mode::selective:
      return sbh * (l.sp ? 30.0 / l.tp : 8 + 22.0 / l.tp);
    default: {
      const double mlp = (l.moe ? l.topk * l.moe_ffn : l.ffn) / l.h;
      return sbh * (l.sp ? (26 + 4 * mlp) / l.tp : 10 + (16 + 4 * mlp) / l.tp);
    }
  }
}

stage_memory memory_of(const layout& l, double layers, bool first, bool last) {
  stage_memory s;
  const double params = local_params(l, layers, first || last);
  const double grad_bytes = l.c->grad_reduce_bf16 ? 2 : 4;
  const double opt_bytes = 12.0 / (l.c->dist_opt ? l.dp : 1);
  s.static_mib = params * (2 + grad_bytes + opt_bytes) / mib;
  // 1F1B: the first stage holds pp micro-batches in flight, the last one;
  // interleaving adds a partial round.
  const double in_flight =
    first ? std::min<double>(l.m, l.pp + (l.vpp > 1 ? (l.pp - 1.0) / l.vpp : 0)) : 1;
  double act = layer_activation_bytes(l) * layers * in_flight;
  if (l.c->recompute == recompute_mode::full)  // one layer rebuilt at a time
    act += l.mbs * l.seq / l.cp * l.h * 34 / l.tp;
  s.activations_mib = act / mib;
  if (last)
    s.logits_mib = l.mbs * l.seq / l.cp * l.vocab / l.tp * 4 * (l.c->fused_ce ? 1 : 2.5) / mib;
  return s;
}

} // namespace

simulated_outcome simulate_independent(const model_spec& md, const cluster_spec& cl,
                                       int world_size, const training_config& c, precision p) {
  const independent_hardware hw = independent_hardware_of(cl.name);
  const layout l = layout_of(md, cl, world_size, c, p);
  const double peak = cl.device.peak_tflops(p) * 1e12;
  const double hbm = cl.device.hbm_gbps * 1e9;
  simulated_outcome out;
  auto& t = out.truth;

  // Per micro-batch and stage: forward, backward twice the forward,
  // recomputation again; the slowest stage sets the pipeline's pace.
  const auto layers_of = stage_layers(l);
  const double layer_fwd = layer_forward_s(l, hw, peak, hbm);
  const double logits = 3 * gemm_s(hw, peak, l.mbs * l.seq / l.cp, l.vocab / l.tp, l.h);
  const double recompute_share = c.recompute == recompute_mode::full        ? 1.0
                                 : c.recompute == recompute_mode::selective ? 0.12
                                                                            : 0.0;
  // TP: two all-reduces (or reduce-scatter + all-gather with SP) per
  // layer forward, two backward, exposed.
  const double act_bytes = l.mbs * l.seq / l.cp * l.h * l.bytes;
  const double tp_layer = l.tp > 1
    ? 4 * collective_s(hw, link_for(l, l.tp), act_bytes, l.tp, 2.0) : 0;
  // EP: dispatch and combine all-to-alls, forward and backward.
  const double ep_layer = l.moe && l.ep > 1
    ? 4 * collective_s(hw, link_for(l, l.tp * l.ep), act_bytes * l.topk / l.tp, l.ep, 1.0) : 0;
  // CP: the key/value ring, overlapped with attention only in part.
  const double cp_layer = l.cp > 1
    ? 1.5 * collective_s(hw, link_for(l, l.tp * l.cp), 2 * act_bytes * l.kv / l.h / l.tp,
                         l.cp, 1.0) : 0;
  double per_mb = 0, per_mb_compute = 0, per_mb_recompute = 0, tp_s = 0, ep_s = 0, cp_s = 0,
         fwd = 0;
  for (int i = 0; i < l.pp; ++i) {
    const double n = layers_of[size_t(i)];
    const double stage_compute = 3 * layer_fwd * n + (i == l.pp - 1 ? logits : 0);
    const double stage = stage_compute + recompute_share * layer_fwd * n
                         + n * (tp_layer + ep_layer + cp_layer);
    if (stage > per_mb) {
      per_mb = stage;
      per_mb_compute = stage_compute;
      per_mb_recompute = recompute_share * layer_fwd * n;
      tp_s = n * tp_layer;
      ep_s = n * ep_layer;
      cp_s = n * cp_layer;
      fwd = layer_fwd * n;
    }
  }

  // Pipeline: fill and drain, and a send/recv per micro-batch and chunk.
  const double bubble = l.pp > 1 ? (l.pp - 1.0) / l.vpp * per_mb : 0;
  const double p2p_bytes = act_bytes / (l.sp ? l.tp : 1);
  const double p2p = l.pp > 1 ? 2.0 * l.m * l.vpp * (p2p_bytes / (link_for(l, l.tp * l.pp).gbps
                                                                  * 1e9 * hw.link_efficiency)
                                                     + link_for(l, l.tp * l.pp).latency_us * 1e-6)
                              : 0;

  // DP: gradients reduced (and with the distributed optimizer parameters
  // gathered) in buckets; overlap hides part behind the backward.
  const double params = local_params(l, layers_of.front(), true);
  const double grad_bytes = params * (c.grad_reduce_bf16 ? 2 : 4);
  const int dp_span = l.world;  // the data-parallel group spans the job
  const double bucket = 40e6;
  const double buckets = std::max(1.0, std::ceil(grad_bytes / bucket));
  double dp_s = buckets * collective_s(hw, link_for(l, dp_span), grad_bytes / buckets, l.dp,
                                       c.dist_opt ? 1.0 : 2.0);
  double gather_s = c.dist_opt ? buckets * collective_s(hw, link_for(l, dp_span),
                                                        params * l.bytes / buckets, l.dp, 1.0)
                               : 0;
  const double backward = l.m * (2 * fwd + per_mb_recompute);
  if (c.overlap_grad)
    dp_s = std::max(dp_s * (1 - hw.grad_overlap), dp_s - backward);
  if (c.overlap_param)
    gather_s *= 0.25;

  // Optimizer: Adam reads and writes parameters, gradients and two moments.
  const double opt_params = c.dist_opt ? params / l.dp : params;
  const double optimizer = opt_params * 36 / hbm + 2e-3;

  auto& tb = t.time;
  tb.compute_s = l.m * per_mb_compute;
  tb.recompute_s = l.m * per_mb_recompute;
  tb.tp_comm_s = l.m * tp_s;
  tb.ep_comm_s = l.m * ep_s;
  tb.cp_comm_s = l.m * cp_s;
  tb.bubble_s = bubble;
  tb.pp_comm_s = p2p;
  tb.dp_comm_s = dp_s + gather_s;
  tb.optimizer_s = optimizer;
  tb.other_s = hw.fixed_s;

  // Memory per stage, with fragmentation growing with the micro-batches
  // in flight and a thrashing allocator near the limit.
  t.memory_limit_mib = cl.memory_mib();
  double worst_share = 0;
  for (int stage = 0; stage < l.pp; ++stage) {
    const bool first = stage == 0, last = stage == l.pp - 1;
    const double n = layers_of[size_t(stage)];
    const auto sm = memory_of(l, n, first, last || l.pp == 1);
    memory_breakdown b;
    b.stage = stage;
    b.weights_mib = local_params(l, n, first || last) * 2 / mib;
    b.gradients_mib = local_params(l, n, first || last) * (c.grad_reduce_bf16 ? 2 : 4) / mib;
    b.optimizer_mib = sm.static_mib - b.weights_mib - b.gradients_mib;
    b.activations_mib = sm.activations_mib;
    b.logits_mib = sm.logits_mib;
    const double in_flight = first ? std::min<double>(l.m, l.pp) : 1;
    const double frag = hw.fragmentation * in_flight * sm.activations_mib;
    b.overhead_mib = hw.context_mib + frag;
    b.total_mib = sm.static_mib + sm.activations_mib + sm.logits_mib + b.overhead_mib;
    // The cliff: past the threshold the allocator cannot find contiguous
    // blocks, and what it holds in its cache counts too.
    const double share = b.total_mib / t.memory_limit_mib;
    if (share > hw.cliff_share && share <= 1)
      b.total_mib += (share - hw.cliff_share) * 2 * t.memory_limit_mib;
    worst_share = std::max(worst_share, b.total_mib / t.memory_limit_mib);
    t.stages.push_back(b);
  }
  const auto peak_it = std::max_element(t.stages.begin(), t.stages.end(), [](auto& a, auto& b) {
    return a.total_mib < b.total_mib;
  });
  t.peak = *peak_it;
  t.peak_memory_mib = t.peak.total_mib;
  t.fits = t.peak_memory_mib <= t.memory_limit_mib;
  out.out_of_memory = !t.fits;
  out.oom_stage = out.out_of_memory ? t.peak.stage : -1;

  double time = tb.compute_s + tb.recompute_s + tb.tp_comm_s + tb.ep_comm_s + tb.cp_comm_s
                + tb.bubble_s + tb.pp_comm_s + tb.dp_comm_s + tb.optimizer_s + tb.other_s;
  if (worst_share > hw.cliff_share) {
    const double over = std::min(1.0, (worst_share - hw.cliff_share) / (1 - hw.cliff_share));
    const double slow = hw.cliff_slowdown * over * over * time;
    tb.other_s += slow;
    time += slow;
  }
  t.iteration_time_s = time;
  // TFLOP/s as Megatron prints them: its own FLOP count over the time.
  const perf_context x = make_context(md, cl, world_size, c, p, perf_calibration{});
  t.tflops_per_gpu = model_flops_noncausal(x) / world_size / time / 1e12;
  t.peak_tflops = mfu_peak_tflops(cl.device);
  t.mfu = model_flops_utilization(t.tflops_per_gpu, t.peak_tflops);
  t.mfu_full_attention = t.tflops_per_gpu * 1e12 / peak;
  t.mfu_causal = t.mfu;
  t.hfu = t.mfu * (1 + recompute_share / 3);
  t.hardware_tflops_per_gpu = t.hfu * t.peak_tflops;
  t.kernel_utilization = t.mfu_full_attention * (1 + recompute_share / 3);
  t.tokens_per_s_per_gpu = l.m * l.mbs * l.seq * l.dp / world_size / time;
  t.limiting_factor = out.out_of_memory ? "memory" : "compute";
  return out;
}

} // namespace paratune
