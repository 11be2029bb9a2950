#include "core/tpu/mesh_model.hpp"

#include <algorithm>
#include <cstring>

#include "core/model_flops_utilization.hpp"
#include "core/perf/device_profile.hpp"
#include "core/tpu/maxtext_args.hpp"
#include "core/tpu/mesh_parts.hpp"

namespace paratune {

namespace {

// Collectives of FSDP and gradient reduction run on the DMA engines while
// the matrix units work; this much of the compute time can hide them.
constexpr double overlap_fraction = 0.8;

const char* limiting_of(const mesh_prediction& p) {
  if (!p.memory.fits)
    return "memory_capacity";
  if (p.exposed_comm_s >= p.compute_s && p.exposed_comm_s >= p.hbm_s)
    return "communication";
  return p.hbm_s > p.compute_s ? "hbm_bandwidth" : "compute";
}

// Per chip; `causal` halves attention. The input embedding is a lookup,
// so only the logits' vocab x h matmul counts.
double useful_flops_per_chip(const mesh_shapes& s, const mesh_workload& w, int chips,
                             bool causal) {
  const double tokens = double(w.global_batch) * w.seq_len;
  const double active = s.dense_params + s.vocab * s.h
                        + (s.moe ? s.expert_params * s.topk / std::max(1.0, s.experts) : 0);
  const double attention = (causal ? 6.0 : 12.0) * s.layers * s.q * w.seq_len;
  return tokens * (6 * active + attention) / chips;
}

void sum_times(mesh_prediction& p) {
  for (const auto& op : p.ops) {
    if (op.collective) {
      p.comm_s += op.seconds;
      p.exposed_comm_s += op.exposed_s;
    } else if (std::strcmp(op.bound_by.c_str(), "Compute") == 0) {
      p.compute_s += op.seconds;
    } else {
      p.hbm_s += op.seconds;
    }
  }
  p.step_s = p.compute_s + p.hbm_s + p.exposed_comm_s;
}

} // namespace

mesh_prediction predict_mesh(const model_spec& m, const cluster_spec& cluster,
                             const tpu_slice& slice, const tpu_mesh& ici, const tpu_mesh& dcn,
                             const mesh_workload& w, const mesh_calibration& cal) {
  mesh_prediction p;
  p.ici = ici;
  p.dcn = dcn;
  const auto shapes = make_mesh_shapes(m, ici, dcn, w);
  p.problems = shapes.problems;
  // What MaxText itself refuses, or would run as another configuration, in
  // MaxText's words: the guard reads the same table as the export and the
  // simulator (maxtext_rule_table).
  // The per-device batch is over the chips MaxText is given (the slices'),
  // whatever the mesh spans.
  maxtext_launch launch{m, ici, dcn, w, slice.chips()};
  for (const auto& f : check_maxtext_overrides(render_maxtext_args(launch),
                                               {slice.chips_per_slice(), slice.num_slices,
                                                w.global_batch}))
    p.problems.push_back("MaxText " + std::string(f.refuses() ? "refuses" : "changes") + " it ("
                         + std::string(f.row().id) + "): " + f.printed());
  if (ici.chips() != slice.chips_per_slice())
    p.problems.push_back("mesh " + to_string(ici) + " spans " + std::to_string(ici.chips())
                         + " chips, the slice has " + std::to_string(slice.chips_per_slice()));
  if (dcn.chips() != slice.num_slices)
    p.problems.push_back("DCN mesh spans " + std::to_string(dcn.chips()) + " slices, the job has "
                         + std::to_string(slice.num_slices));
  const auto& prof = profile_for(cluster.device);
  const auto placement = place_mesh(ici, dcn, slice, cluster, prof);
  p.exact_placement = placement.exact;
  p.memory = estimate_mesh_memory(shapes, w, cluster.device.hbm_gib);
  if (!p.valid())
    return p;

  mesh_detail::mesh_inputs in;
  in.s = &shapes;
  in.w = &w;
  in.placement = &placement;
  in.target = make_kernel_target(cluster.device, prof, w.prec, {});
  in.profile = &prof;
  in.cal = cal;
  in.micro_steps = std::max(1, w.accumulation_steps);
  p.ops = mesh_detail::compute_ops(in);
  double busy = 0;
  for (const auto& op : p.ops)
    busy += op.seconds;
  auto comm = mesh_detail::collective_ops(in);
  mesh_detail::expose_collectives(comm, overlap_fraction * busy);
  p.ops.insert(p.ops.end(), comm.begin(), comm.end());
  std::stable_sort(p.ops.begin(), p.ops.end(),
                   [](const mesh_op& a, const mesh_op& b) { return a.seconds > b.seconds; });
  sum_times(p);
  p.axes = mesh_detail::axis_reports(in, p.ops);
  const int chips = slice.chips();
  p.model_flops_per_chip = useful_flops_per_chip(shapes, w, chips, false);
  p.model_flops_causal_per_chip = useful_flops_per_chip(shapes, w, chips, true);
  const double peak = cluster.device.peak_tflops(w.prec) * 1e12;
  if (p.step_s > 0 && peak > 0) {
    p.tflops_per_chip = p.model_flops_per_chip / p.step_s / 1e12;
    p.mfu = p.model_flops_per_chip / p.step_s / peak;
    p.mfu_causal = p.model_flops_causal_per_chip / p.step_s / peak;
  }
  p.tokens_per_s = p.step_s > 0 ? double(w.global_batch) * w.seq_len / p.step_s : 0;
  p.limiting = limiting_of(p);
  return p;
}

double measured_mesh_mfu(const model_spec& m, const cluster_spec& cluster, const tpu_slice& slice,
                         const tpu_mesh& ici, const tpu_mesh& dcn, const mesh_workload& w,
                         double step_ms) {
  if (step_ms <= 0)
    return 0;
  const auto p = predict_mesh(m, cluster, slice, ici, dcn, w);
  return model_flops_utilization(p.model_flops_per_chip / (step_ms / 1000) / 1e12, cluster.device);
}

} // namespace paratune
