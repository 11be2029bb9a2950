// The collectives of a step on one chip, per mesh axis, and how much of
// each the step waits for.
#include "core/tpu/mesh_parts.hpp"

#include <algorithm>
#include <functional>

namespace paratune::mesh_detail {

namespace {

using axis_fn = std::function<double(const axis_link&, double)>;

// A collective over several axes at once, hierarchically: the fastest axis
// moves the whole buffer, each following one the shard left after it.
double group_time(const mesh_inputs& in, std::vector<mesh_axis> axes, double bytes,
                  const axis_fn& fn) {
  std::vector<const axis_link*> links;
  for (auto a : axes)
    if (in.placement->of(a).size() > 1)
      links.push_back(&in.placement->of(a));
  std::sort(links.begin(), links.end(), [](const axis_link* a, const axis_link* b) {
    return a->ici_bytes_per_s > b->ici_bytes_per_s;
  });
  double t = 0;
  for (const auto* l : links) {
    t += fn(*l, bytes);
    bytes /= l->size();
  }
  return t;
}

bool any_dcn(const mesh_inputs& in, const std::vector<mesh_axis>& axes) {
  for (auto a : axes)
    if (in.placement->of(a).dcn_size > 1)
      return true;
  return false;
}

mesh_op collective(const mesh_inputs& in, std::string name, const char* category,
                   mesh_axis axis, const std::vector<mesh_axis>& axes, double seconds,
                   double bytes, double count) {
  mesh_op op;
  op.name = std::move(name);
  op.category = category;
  op.bound_by = any_dcn(in, axes) ? "DCN" : "ICI";
  op.seconds = seconds * in.cal.comm_scale;
  op.comm_bytes = bytes;
  op.hbm_bytes = 2 * bytes;  // read the send buffer, write the received one
  op.occurrences = static_cast<long long>(count);
  op.collective = true;
  op.axis = axis;
  return op;
}

// Collectives the backward pass repeats to recompute the forward: each
// recomputed half of the layer (attention block, MLP block) gathers its
// input again.
double recomputed_blocks(const mesh_inputs& in) {
  const auto r = plan_of(in.w->remat);
  return (r.recompute_qkv || r.recompute_out ? 1 : 0) + (r.recompute_mlp_in ? 1 : 0);
}

// Tensor parallelism: an all-gather and a reduce-scatter of the layer's
// activations around attention and around the MLP, forward and backward
// (an all-reduce's volume each), again for a recomputed forward.
void tensor_ops(const mesh_inputs& in, std::vector<mesh_op>& ops) {
  const auto& s = *in.s;
  if (s.model <= 1)
    return;
  const double bytes = s.tokens_local * s.h * 2;
  const double count = s.layers * in.micro_steps * (4 + recomputed_blocks(in));
  const double t = count * group_time(in, {mesh_axis::model}, bytes, axis_all_reduce_s);
  ops.push_back(collective(in, "all-reduce (model axis: layer activations)", "all-reduce",
                           mesh_axis::model, {mesh_axis::model}, t, bytes * count, count));
}

// Context parallelism: every seq shard needs the keys and values of the
// whole sequence (all-gather forward, reduce-scatter of their gradients).
void context_ops(const mesh_inputs& in, std::vector<mesh_op>& ops) {
  const auto& s = *in.s;
  if (s.seq <= 1)
    return;
  const double bytes = s.batch_local * in.w->seq_len * 2 * s.kv / s.model * 2;
  const double count =
      s.layers * in.micro_steps * (2 + (plan_of(in.w->remat).recompute_attention ? 1 : 0));
  const double t = count * group_time(in, {mesh_axis::seq}, bytes, axis_all_gather_s);
  ops.push_back(collective(in, "collective-permute (seq axis: keys and values)",
                           "collective-permute", mesh_axis::seq, {mesh_axis::seq}, t,
                           bytes * count, count));
}

std::vector<mesh_axis> weight_gather_axes(const mesh_inputs& in) {
  std::vector<mesh_axis> axes{mesh_axis::fsdp};
  if (in.w->seq_shards_weights)
    axes.push_back(mesh_axis::seq);
  return axes;
}

// FSDP: gather each layer's weights before its forward and backward (and
// recomputed forward), reduce-scatter its gradient, every micro-step.
void fsdp_ops(const mesh_inputs& in, std::vector<mesh_op>& ops) {
  const auto& s = *in.s;
  const auto axes = weight_gather_axes(in);
  int shards = 1;
  for (auto a : axes)
    shards *= in.placement->of(a).size();
  if (shards <= 1)
    return;
  const double weights = (s.dense_params + s.embedding_params) / s.model
                         + s.expert_params / (double(s.expert) * s.model);
  mesh_axis main = axes.front();
  for (auto a : axes)
    if (in.placement->of(a).size() > in.placement->of(main).size())
      main = a;
  const double gathers = (2 + (plan_of(in.w->remat).recomputes_any() ? 1 : 0)) * in.micro_steps;
  const double ag = gathers * group_time(in, axes, weights * 2, axis_all_gather_s);
  ops.push_back(collective(in, std::string("all-gather (") + to_string(main)
                                 + " axis: layer weights)", "all-gather", main,
                           axes, ag, weights * 2 * gathers, gathers * s.layers));
  const double grad = weights * in.w->param_bytes;
  const double rs = in.micro_steps * group_time(in, axes, grad, axis_reduce_scatter_s);
  ops.push_back(collective(in, std::string("reduce-scatter (") + to_string(main)
                                 + " axis: gradients)", "all-reduce-scatter fusion", main, axes, rs, grad * in.micro_steps,
                           in.micro_steps * s.layers));
}

// Axes that hold the same weight shard on different tokens: their gradients
// are all-reduced once per step.
std::vector<mesh_axis> gradient_axes(const mesh_inputs& in) {
  std::vector<mesh_axis> axes{mesh_axis::data, mesh_axis::replica, mesh_axis::expert};
  if (!in.w->seq_shards_weights)
    axes.push_back(mesh_axis::seq);
  return axes;
}

void gradient_ops(const mesh_inputs& in, std::vector<mesh_op>& ops) {
  const auto& s = *in.s;
  const auto axes = gradient_axes(in);
  const double dense = (s.dense_params + s.embedding_params) / s.dense_weight_shards
                       * in.w->param_bytes;
  const double experts = s.expert_params / s.expert_weight_shards * in.w->param_bytes;
  auto without_expert = axes;
  without_expert.erase(std::find(without_expert.begin(), without_expert.end(), mesh_axis::expert));
  const double t = group_time(in, axes, dense, axis_all_reduce_s)
                   + group_time(in, without_expert, experts, axis_all_reduce_s);
  if (t <= 0)
    return;
  mesh_axis main = mesh_axis::data;
  for (auto a : axes)
    if (in.placement->of(a).size() > in.placement->of(main).size())
      main = a;
  ops.push_back(collective(in, std::string("all-reduce (") + to_string(main)
                                 + " axis: gradients)",
                           "all-reduce", main, axes, t, dense + experts, s.layers));
}

// Expert parallelism: dispatch and combine all-to-alls of the routed tokens.
void expert_ops(const mesh_inputs& in, std::vector<mesh_op>& ops) {
  const auto& s = *in.s;
  if (s.expert <= 1 || !s.moe)
    return;
  const double bytes = s.tokens_local * s.topk * s.h * 2;
  const double count =
      s.layers * in.micro_steps * (4 + (plan_of(in.w->remat).recompute_mlp_in ? 2 : 0));
  const double t = count * group_time(in, {mesh_axis::expert}, bytes, axis_all_to_all_s);
  ops.push_back(collective(in, "all-to-all (expert axis: routed tokens)", "all-to-all",
                           mesh_axis::expert, {mesh_axis::expert}, t, bytes * count, count));
}

} // namespace

std::vector<mesh_op> collective_ops(const mesh_inputs& in) {
  std::vector<mesh_op> ops;
  tensor_ops(in, ops);
  context_ops(in, ops);
  fsdp_ops(in, ops);
  gradient_ops(in, ops);
  expert_ops(in, ops);
  return ops;
}

void expose_collectives(std::vector<mesh_op>& ops, double overlap_budget_s) {
  // XLA's collective matmuls hide part of the tensor-parallel traffic; the
  // ring exchange of keys/values overlaps with the attention of the previous
  // block; routed tokens are needed before the expert matmuls can start.
  double overlappable = 0;
  std::vector<mesh_op*> pooled;
  for (auto& op : ops) {
    if (!op.collective)
      continue;
    if (op.axis == mesh_axis::model)
      op.exposed_s = 0.6 * op.seconds;
    else if (op.category == "collective-permute")
      op.exposed_s = 0.5 * op.seconds;
    else if (op.category == "all-to-all")
      op.exposed_s = op.seconds;
    else {
      overlappable += op.seconds;
      pooled.push_back(&op);
    }
  }
  const double exposed = std::max(0.0, overlappable - overlap_budget_s);
  for (auto* op : pooled)
    op->exposed_s = op->seconds * exposed / overlappable;
}

std::vector<mesh_axis_report> axis_reports(const mesh_inputs& in,
                                           const std::vector<mesh_op>& ops) {
  const auto& s = *in.s;
  std::vector<mesh_axis_report> out;
  const double sparsity = s.moe && s.topk > 0 ? s.experts / s.topk : 1.0;
  for (auto a : all_mesh_axes) {
    const auto& l = in.placement->of(a);
    if (l.size() <= 1)
      continue;
    mesh_axis_report r;
    r.axis = a;
    r.size = l.size();
    r.placement = l.placement;
    for (const auto& op : ops)
      if (op.collective && op.axis == a) {
        r.comm_s += op.seconds;
        r.exposed_s += op.exposed_s;
      }
    switch (a) {
      case mesh_axis::model:
        r.role = "tensor parallel: activation collectives in every layer";
        r.intensity = (s.moe ? s.moe_ffn : s.ffn) / s.model;
        break;
      case mesh_axis::expert:
        r.role = "expert parallel: all-to-all of routed tokens";
        r.intensity = s.moe_ffn;
        break;
      case mesh_axis::seq:
        r.role = in.w->seq_shards_weights
                     ? "context parallel: key/value exchange, weights gathered like FSDP"
                     : "context parallel: key/value exchange, gradients all-reduced";
        r.intensity = s.tokens_local / sparsity;
        break;
      case mesh_axis::fsdp:
        r.role = "fully sharded data parallel: weight all-gathers, gradient reduce-scatters";
        r.intensity = s.tokens_local / sparsity;
        break;
      default:
        r.role = "data parallel (replicated weights): gradient all-reduce";
        r.intensity = s.tokens_local / sparsity;
    }
    const double ici_raw = l.ici_bytes_per_s / in.profile->scale_up_efficiency;
    const double dcn_raw = l.dcn_bytes_per_s / in.profile->scale_out_efficiency;
    const double raw = l.dcn_size > 1 ? dcn_raw : ici_raw;
    r.hardware_intensity = raw > 0 ? in.target.peak_flops / raw : 0;
    r.compute_bound = r.intensity >= r.hardware_intensity;
    out.push_back(r);
  }
  return out;
}

} // namespace paratune::mesh_detail
