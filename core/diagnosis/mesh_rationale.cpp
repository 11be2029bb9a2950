#include "core/diagnosis/mesh_rationale.hpp"

#include <string>

#include <fmt/format.h>

namespace paratune {

namespace {

const mesh_axis_report* axis_of(const mesh_prediction& p, mesh_axis a) {
  for (const auto& r : p.axes)
    if (r.axis == a)
      return &r;
  return nullptr;
}

std::string axis_noun(mesh_axis a) {
  switch (a) {
    case mesh_axis::model: return "model (tensor) parallelism";
    case mesh_axis::seq: return "sequence (context) parallelism";
    case mesh_axis::fsdp: return "FSDP";
    case mesh_axis::expert: return "expert parallelism";
    case mesh_axis::replica: return "replica parallelism";
    default: return "data parallelism";
  }
}

std::string title_of(const experiment_spec& exp, const mesh_prediction& cand) {
  std::string up, down;
  for (auto a : all_mesh_axes) {
    if (cand.ici.at(a) > exp.mesh.at(a))
      up = axis_noun(a);
    if (cand.ici.at(a) < exp.mesh.at(a))
      down = axis_noun(a);
  }
  return "Increase " + up + ", reduce " + down;
}

std::string hbm_gb_text(const mesh_prediction& p) {
  double bytes = 0;
  for (const auto& op : p.ops)
    bytes += op.hbm_bytes;
  return fmt::format("{:.0f} GB", bytes / 1e9);
}

double op_seconds(const mesh_prediction& p, const char* category, const char* bound) {
  double t = 0;
  for (const auto& op : p.ops)
    if (op.category == category && op.bound_by == bound)
      t += op.seconds;
  return t;
}

// Where compute time moves: matmuls (their local shapes) and attention
// (causal imbalance across sequence shards, local query length).
std::string compute_parts(const mesh_prediction& base, const mesh_prediction& c) {
  return fmt::format("matmuls {:.2f} -> {:.2f} s, ",
                     op_seconds(base, "convolution fusion", "Compute"),
                     op_seconds(c, "convolution fusion", "Compute"))
         + fmt::format("attention {:.2f} -> {:.2f} s", op_seconds(base, "custom-call", "Compute"),
                       op_seconds(c, "custom-call", "Compute"));
}

std::string lead_for(bottleneck_class b, const mesh_prediction& base, const mesh_prediction& c) {
  switch (b) {
    case bottleneck_class::communication: {
      const mesh_axis_report* heavy = nullptr;
      for (const auto& a : base.axes)
        if (!heavy || a.exposed_s > heavy->exposed_s)
          heavy = &a;
      std::string s = "The step is communication-bound: its longest operations are collectives "
                      "waiting on the interconnect. ";
      if (heavy)
        s += std::string("In the mesh model the ") + to_string(heavy->axis) + " axis ("
             + heavy->role + ") carries "
             + fmt::format("{:.2f} s of the {:.2f} s", heavy->exposed_s, base.exposed_comm_s)
             + " of exposed collective time per step; ";
      return s + fmt::format("this mesh brings exposed collectives to {:.2f} s per step.",
                             c.exposed_comm_s);
    }
    case bottleneck_class::hbm_bandwidth:
      return "The step is HBM-bandwidth-bound: its longest operations, collectives included, "
             "stream buffers through HBM. Per chip the step moves " + hbm_gb_text(base)
             + " through HBM in the mesh model; this mesh moves " + hbm_gb_text(c)
             + ", because each chip holds and gathers a smaller share of the weights and "
               "reuses each weight byte on more tokens.";
    case bottleneck_class::compute:
      return "The device is busy and its long operations are compute-bound, so the lever is "
             "the efficiency of the computation itself: compute-bound time per step goes from "
             + fmt::format("{:.2f} s to {:.2f} s", base.compute_s, c.compute_s) + " ("
             + compute_parts(base, c) + "), with "
             + fmt::format("{:.2f} s of collectives exposed ({:.2f} s now).", c.exposed_comm_s,
                           base.exposed_comm_s);
    case bottleneck_class::memory_capacity:
      return fmt::format("The job is at the edge of HBM: {:.1f} GiB of {:.1f} GiB per chip; this "
                         "mesh needs {:.1f} GiB.", base.memory.total_gib, base.memory.limit_gib,
                         c.memory.total_gib);
    case bottleneck_class::input_host:
      return "The device waits for input or the host; a layout change helps only once that is "
             "fixed, so the proposal follows the model's step-time prediction.";
    default:
      return "No single resource dominates the profile, so the proposal follows the model's "
             "step-time prediction.";
  }
}

// §2.6: an axis is compute-bound when its arithmetic intensity exceeds the
// hardware's FLOP/s per byte/s of that axis's links.
std::string intensity_text(const experiment_spec& exp, const mesh_prediction& cand) {
  std::string s;
  for (auto a : all_mesh_axes) {
    if (cand.ici.at(a) == exp.mesh.at(a))
      continue;
    const auto* r = axis_of(cand, a);
    if (!r)
      continue;
    s += std::string(" ") + to_string(a)
         + fmt::format(" axis: intensity {:.0f} vs hardware {:.0f} FLOP/B (", r->intensity,
                       r->hardware_intensity)
         + (r->compute_bound ? "compute-bound)." : "communication-bound).");
  }
  return s.empty() ? s : " Sharding rule check (MaxText):" + s;
}

void add_tradeoffs(const experiment_spec& exp, const mesh_prediction& base,
                   const mesh_prediction& cand, candidate& c) {
  if (cand.memory.total_gib > base.memory.total_gib * 1.05)
    c.tradeoffs.push_back(fmt::format("more HBM per chip: {:.1f} -> {:.1f} GiB (of {:.1f} GiB)",
                                      base.memory.total_gib, cand.memory.total_gib,
                                      cand.memory.limit_gib));
  for (auto a : all_mesh_axes) {
    if (cand.ici.at(a) <= exp.mesh.at(a))
      continue;
    const auto* before = axis_of(base, a);
    const auto* after = axis_of(cand, a);
    const double t0 = before ? before->comm_s : 0, t1 = after ? after->comm_s : 0;
    if (t1 > t0 * 1.05)
      c.tradeoffs.push_back(std::string("more ") + to_string(a)
                            + fmt::format("-axis collective time: {:.2f} -> {:.2f} s per step",
                                          t0, t1)
                            + (after && after->exposed_s < 0.2 * t1 ? " (mostly overlapped)" : ""));
    if (a == mesh_axis::model)
      c.tradeoffs.push_back("tensor-parallel collectives sit between dependent matmuls in every "
                            "layer; smaller local matmuls");
    if (a == mesh_axis::seq)
      c.tradeoffs.push_back("longer key/value exchange and, unless sequence chunks are striped, "
                            "more causal load imbalance");
  }
  const int batch_axes = cand.ici.at(mesh_axis::data) * cand.ici.at(mesh_axis::fsdp)
                         * cand.ici.at(mesh_axis::replica) * cand.dcn.chips();
  if (batch_axes * exp.workload.accumulation_steps >= exp.workload.global_batch)
    c.tradeoffs.push_back("the batch axes now hold one sequence per shard: further data "
                          "parallelism needs a larger global batch");
  if (cand.step_s > base.step_s * 1.02)
    c.tradeoffs.push_back(fmt::format("the model predicts a longer step: {:.2f} -> {:.2f} s",
                                      base.step_s, cand.step_s));
  if (c.tradeoffs.empty())
    c.tradeoffs.push_back("no cost the model sees beyond re-sharding the checkpoint layout");
}

} // namespace

void describe_mesh_candidate(const experiment_spec& exp, bottleneck_class b,
                             const mesh_prediction& base, const mesh_prediction& cand,
                             candidate& c) {
  c.title = title_of(exp, cand);
  c.rationale = lead_for(b, base, cand) + intensity_text(exp, cand)
                + fmt::format(" Model step time {:.2f} s -> {:.2f} s,", base.step_s, cand.step_s)
                + fmt::format(" MFU {:.0f}% -> {:.0f}%.", 100 * base.mfu, 100 * cand.mfu);
  add_tradeoffs(exp, base, cand, c);
}

} // namespace paratune
