#include "core/perf/time_model.hpp"

#include <algorithm>

#include "core/perf/memory_model.hpp"

namespace paratune {

namespace {

struct pass { double forward = 0, backward = 0; };

pass operator+(pass a, pass b) { return {a.forward + b.forward, a.backward + b.backward}; }
pass scaled(pass a, double f) { return {a.forward * f, a.backward * f}; }
pass from(gemm_pass_times g) { return {g.forward_s, g.backward_s}; }

double seq_split(const perf_context& x) { return x.sp ? x.tp : 1; }

// An MLP of width `ffn` over every token of the micro-batch.
pass mlp_gemms(const perf_context& x, const kernel_target& k, double ffn) {
  const double up = (x.swiglu ? 2 : 1) * ffn;
  return from(gemm_pass(k, x.tokens, up / x.tp, x.h))
         + from(gemm_pass(k, x.tokens, x.h, ffn / x.tp));
}

pass dense_mlp_gemms(const perf_context& x, const kernel_target& k) {
  return mlp_gemms(x, k, x.ffn);
}

// Grouped expert GEMMs: the top-k copies of this rank's tokens spread over
// the local experts; the busiest expert sets the pace (x1.1).
pass moe_mlp_gemms(const perf_context& x, const kernel_target& k) {
  const double up = (x.swiglu ? 2 : 1) * x.moe_ffn;
  const double local_experts = std::max(1.0, x.experts / x.ep);
  const double rows = x.tokens * x.topk * x.ep / std::max(1.0, x.experts);
  const pass one = from(gemm_pass(k, rows, up / x.tp, x.h))
                   + from(gemm_pass(k, rows, x.h, x.moe_ffn / x.tp));
  pass all = scaled(one, 1.1 * local_experts) + from(gemm_pass(k, x.tokens, x.experts, x.h));
  if (x.shared_ffn > 0) // the shared expert: a dense MLP on every token
    all = all + mlp_gemms(x, k, x.shared_ffn);
  return all;
}

pass attention_core(const perf_context& x, const kernel_target& k) {
  const double score_flops = 4 * x.tokens * x.seq * x.q / x.tp;
  if (x.cal.flash_attention) {
    // Flash attention skips the masked half; its backward recomputes the
    // scores (2.5x the forward FLOPs).
    const double fwd = 0.5 * score_flops / (k.peak_flops * k.attention_efficiency)
                       + k.kernel_overhead_s;
    return {fwd, 2.5 * fwd};
  }
  // Unfused: two batched GEMMs over the full s x s scores, then the scores
  // stream through HBM in softmax, dropout and the second GEMM.
  const double eta = gemm_efficiency(k, x.seq_local, x.seq, x.head_dim,
                                     x.mbs * x.heads / x.tp);
  const double gemms = score_flops / (k.peak_flops * eta);
  const double scores = x.mbs * (x.heads / x.tp) * x.seq_local * x.seq;
  const double bytes = scores * (x.dropout ? 13 : 8);
  const double fwd = gemms + memory_time(k, bytes, 4);
  return {fwd, 2 * fwd};
}

// Norms (read + write, 2 x 4 B), residual adds (2 x 6 B, with dropout fused
// into them: +1 B mask each), the MLP activation and rotary embedding.
pass elementwise(const perf_context& x, const kernel_target& k) {
  const double hidden = (20 + (x.dropout ? 2 : 0)) * x.h / seq_split(x);
  const double f = x.moe ? x.topk * x.moe_ffn * 1.1 + x.shared_ffn : x.ffn;
  const double activation = (x.swiglu ? 6 : 4) * f / x.tp;
  const double rotary = x.rotary ? 4 * (x.q / x.tp + x.kv_local) : 0;
  const double qk_norm = x.qk_norm ? 4 * (x.q / x.tp + x.kv_local) : 0; // read + write Q and K
  const double permute = x.moe ? 8 * x.topk * x.h : 0;
  const double bytes = x.tokens * (hidden + activation + rotary + qk_norm + permute);
  return {memory_time(k, bytes, 10), memory_time(k, 2 * bytes, 16)};
}

double overlap_cost(const perf_context& x) {
  return x.profile->overlap_slowdown * x.cal.overlap_slowdown;
}

// `gemm_backward` is the layer's backward GEMM time, half of which (the
// data-gradient GEMMs) can hide SP's all-gather redo.
void add_tp(const perf_context& x, layer_times& t, double gemm_backward) {
  if (x.tp <= 1)
    return;
  const group_link g = link_for_group(*x.cluster, *x.profile, x.cal, x.tp, 1);
  // Two all-reduces (or all-gather + reduce-scatter with SP, same volume)
  // of the full b*s*h activation per pass.
  const double activation = 2 * x.tokens * x.h;
  const double one = all_reduce_time(g, activation);
  double forward = 2 * one, backward = 2 * one;
  if (x.sp) {
    // SP keeps only the sharded inputs of the QKV and fc1 GEMMs and
    // gathers them again for the weight gradients, behind the data grads.
    const double redo = 2 * all_gather_time(g, activation);
    const double window = gemm_backward / 2;
    backward += std::max(0.0, redo - window);
    t.overlap_penalty += overlap_cost(x) * std::min(redo, window);
  }
  if (x.cal.tp_comm_overlap) {
    // Userbuffers overlap hides most of it behind the adjacent GEMMs.
    const double hidden = 0.8;
    t.overlap_penalty += overlap_cost(x) * hidden * (forward + backward);
    forward *= 1 - hidden;
    backward *= 1 - hidden;
  }
  t.tp_forward = forward;
  t.tp_backward = backward;
}

void add_cp(const perf_context& x, layer_times& t, const pass& attention) {
  if (x.cp <= 1)
    return;
  const group_link g = link_for_group(*x.cluster, *x.profile, x.cal, x.cp, x.tp);
  // Ring attention: cp-1 steps passing K and V forward, K, V and their
  // gradients backward, each overlapped with one attention block.
  const double kv_bytes = 2 * 2 * x.kv_local * x.tokens;
  const double forward = (x.cp - 1) * p2p_time(g, kv_bytes);
  const double backward = 2 * forward;
  const double slow = overlap_cost(x);
  t.cp = std::max(0.0, forward - attention.forward)
         + std::max(0.0, backward - attention.backward);
  t.overlap_penalty += slow * (std::min(forward, attention.forward)
                               + std::min(backward, attention.backward));
}

void add_ep(const perf_context& x, layer_times& t) {
  if (!x.moe || x.ep <= 1)
    return;
  const group_link g = link_for_group(*x.cluster, *x.profile, x.cal, x.ep, x.tp);
  // Dispatch and combine, forward and backward.
  const double bytes = 2 * x.tokens * x.topk * x.h / seq_split(x);
  t.ep = 4 * all_to_all_time(g, bytes);
}

} // namespace

layer_times time_layer(const perf_context& x, const kernel_target& k) {
  const pass attention = attention_core(x, k);
  const pass gemms = from(gemm_pass(k, x.tokens, x.q / x.tp + 2 * x.kv_local, x.h))
                     + from(gemm_pass(k, x.tokens, x.h, x.q / x.tp))
                     + (x.moe ? moe_mlp_gemms(x, k) : dense_mlp_gemms(x, k));
  const pass work = gemms + attention + elementwise(x, k);
  layer_times t;
  t.forward = work.forward;
  t.backward = work.backward;
  t.attention_forward = attention.forward;
  t.recompute = work.forward;
  add_tp(x, t, gemms.backward);
  add_cp(x, t, attention);
  add_ep(x, t);
  return t;
}

namespace {

double recomputed_layers(const perf_context& x, int stage) {
  const auto& c = *x.config;
  const double layers = x.stage_layers[stage];
  if (c.recompute != recompute_mode::full)
    return 0;
  if (c.recompute_block && c.recompute_layers > 0)
    return std::min(layers, double(c.recompute_layers) * x.vpp);
  return layers;
}

// Output layer, loss and final norm on the last stage.
pass logits_work(const perf_context& x, const kernel_target& k) {
  const pass gemm = from(gemm_pass(k, x.tokens, x.vocab / x.tp, x.h));
  const double logits = x.tokens * x.vocab / x.tp;
  // Unfused cross-entropy casts to fp32, takes max, exp, sum and writes the
  // gradient: about 24 bytes per logit over both passes; fused about 8.
  const double bytes = logits * (x.config->fused_ce ? 8 : 24);
  const double loss = memory_time(k, bytes, x.config->fused_ce ? 2 : 8);
  return gemm + pass{loss / 3, 2 * loss / 3};
}

pass embedding_work(const perf_context& x, const kernel_target& k) {
  const double bytes = x.tokens * x.h;
  return {memory_time(k, 4 * bytes, 1), memory_time(k, 8 * bytes, 2)};
}

double pipeline_p2p(const perf_context& x) {
  if (x.pp <= 1)
    return 0;
  const int stride = x.tp * x.cp * x.dp;
  const group_link g = link_for_group(*x.cluster, *x.profile, x.cal, 2, stride);
  const bool split = x.sp || x.cal.p2p_scatter_gather;
  const double bytes = 2 * x.tokens * x.h / (split ? x.tp : 1);
  // Each chunk sends its output forward and its input gradient backward.
  double t = 2 * x.vpp * p2p_time(g, bytes);
  if (x.cal.p2p_scatter_gather && !x.sp && x.tp > 1) {
    const group_link tpg = link_for_group(*x.cluster, *x.profile, x.cal, x.tp, 1);
    t += 2 * x.vpp * all_gather_time(tpg, 2 * x.tokens * x.h);
  }
  return t;
}

} // namespace

stage_times time_stage(const perf_context& x, const kernel_target& k,
                       const layer_times& layer, int stage) {
  stage_times s;
  const double layers = x.stage_layers[stage];
  pass work = scaled(pass{layer.forward, layer.backward}, layers);
  if (stage == 0)
    work = work + embedding_work(x, k);
  if (stage == x.pp - 1)
    work = work + logits_work(x, k);
  s.forward = work.forward;
  s.backward = work.backward;
  s.compute = work.forward + work.backward + layers * layer.overlap_penalty;
  const double recomputed = recomputed_layers(x, stage);
  if (x.config->recompute == recompute_mode::selective)
    s.recompute = layers * layer.attention_forward;
  else
    s.recompute = recomputed * layer.recompute;
  s.tp = layers * (layer.tp_forward + layer.tp_backward) + recomputed * layer.tp_forward;
  s.cp = layers * layer.cp;
  s.ep = layers * layer.ep + recomputed * layer.ep / 2;
  s.pp = pipeline_p2p(x);
  s.backward += s.recompute;
  // The host dispatches every kernel of the pass (Python, PyTorch's eager
  // dispatch, NCCL launches); it runs ahead of the GPU, so it costs time
  // only when the GPU finishes its share faster than the host can queue it.
  // A backward pass issues about twice a forward pass's kernels.
  const double host = x.profile->host_layer_forward_s * x.cal.host_dispatch_scale
                      * (3 * layers + recomputed);
  if (host > s.total()) {
    const double idle = host - s.total();
    s.compute += idle;
    s.forward += idle / 3;
    s.backward += 2 * idle / 3;
  }
  return s;
}

namespace {

struct dp_groups {
  group_link dense;
  group_link experts;
};

dp_groups groups_for(const perf_context& x) {
  dp_groups g;
  g.dense = link_for_group(*x.cluster, *x.profile, x.cal, x.dp * x.cp, x.tp);
  const int edp = std::max(1, x.world / (x.tp * x.ep * x.pp));
  g.experts = link_for_group(*x.cluster, *x.profile, x.cal, edp, x.tp * x.ep);
  return g;
}

// An overlapped transfer: what sticks out of the window (at least the last
// bucket) plus the compute it slows while hidden.
double overlapped(const perf_context& x, double comm, double window, double last_bucket) {
  const double exposed = std::max(comm * last_bucket, comm - window);
  const double hidden = comm - exposed;
  return exposed + x.profile->overlap_slowdown * x.cal.overlap_slowdown * hidden;
}

} // namespace

double data_parallel_time(const perf_context& x, int stage, const stage_times& st) {
  if (x.dp * x.cp <= 1 && x.world / (x.tp * x.ep * x.pp) <= 1)
    return 0;
  const stage_params params = params_on_stage(x, stage);
  const dp_groups g = groups_for(x);
  // fp32 main grads reduce 4 B per parameter; fp16 runs and
  // --grad-reduce-in-bf16 reduce the 16-bit gradient buffer.
  const double grad_bytes = x.prec == precision::fp16 || x.config->grad_reduce_bf16 ? 2 : 4;
  double reduce = 0, gather = 0;
  if (x.config->dist_opt) {
    reduce = reduce_scatter_time(g.dense, grad_bytes * params.dense)
             + reduce_scatter_time(g.experts, grad_bytes * params.experts);
    gather = all_gather_time(g.dense, 2 * params.dense)
             + all_gather_time(g.experts, 2 * params.experts);
  } else {
    reduce = all_reduce_time(g.dense, grad_bytes * params.dense)
             + all_reduce_time(g.experts, grad_bytes * params.experts);
  }
  // Megatron's DDP buckets hold max(40M, 1M * dp) parameters.
  const double bucket = std::max(40e6, 1e6 * x.dp);
  const double last = std::min(1.0, bucket / std::max(1.0, params.total()));
  double t = x.config->overlap_grad ? overlapped(x, reduce, st.backward, last) : reduce;
  t += x.config->overlap_param ? overlapped(x, gather, st.forward, last) : gather;
  return t;
}

double optimizer_time(const perf_context& x, const kernel_target& k, int stage) {
  const stage_params params = params_on_stage(x, stage);
  const double shards = x.config->dist_opt ? double(x.dp * x.cp) : 1.0;
  // Adam reads grad and master, m, v, writes master, m, v and the 16-bit
  // weight (~36 B/param on its shard); zeroing and the grad norm touch
  // every local gradient (~8 B/param).
  const double sharded = x.prec == precision::fp16 ? 44 : 36;
  const double bytes = params.total() * (sharded / shards + 8);
  return memory_time(k, bytes, 24);
}

time_breakdown time_iteration(const perf_context& x) {
  const kernel_target k = make_kernel_target(x.cluster->device, *x.profile, x.prec, x.cal);
  const layer_times layer = time_layer(x, k);
  time_breakdown out;
  double slowest = -1, sum = 0, dp_end = 0, opt = 0;
  stage_times worst;
  double offset = 0;
  for (int i = 0; i < x.pp; ++i) {
    const stage_times s = time_stage(x, k, layer, i);
    const double t = s.total();
    sum += t;
    if (t > slowest) {
      slowest = t;
      worst = s;
    }
    // Stage i ends its last backward about i backward passes before stage 0.
    dp_end = std::max(dp_end, data_parallel_time(x, i, s) - offset);
    offset += s.backward;
    opt = std::max(opt, optimizer_time(x, k, i));
  }
  const double m = x.micro_batches;
  out.compute_s = m * worst.compute;
  out.recompute_s = m * worst.recompute;
  out.tp_comm_s = m * worst.tp;
  out.cp_comm_s = m * worst.cp;
  out.ep_comm_s = m * worst.ep;
  out.pp_comm_s = m * worst.pp;
  out.bubble_s = (sum - slowest) / x.vpp;
  out.dp_comm_s = std::max(0.0, dp_end);
  out.optimizer_s = opt;
  out.other_s = x.profile->iteration_overhead_s;
  return out;
}

} // namespace paratune
