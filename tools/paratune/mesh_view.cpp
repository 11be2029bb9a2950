#include "tools/paratune/mesh_view.hpp"

#include <algorithm>
#include <ostream>

#include <fmt/format.h>

namespace paratune::cli {

using nlohmann::json;

namespace {

json time_json(const mesh_prediction& p) {
  return {{"compute_s", p.compute_s},
          {"hbm_s", p.hbm_s},
          {"collectives_s", p.comm_s},
          {"exposed_collectives_s", p.exposed_comm_s}};
}

json memory_json(const mesh_memory& m) {
  return {{"params_gib", m.params_gib},       {"grads_gib", m.grads_gib},
          {"optimizer_gib", m.optimizer_gib}, {"activations_gib", m.activations_gib},
          {"workspace_gib", m.workspace_gib}, {"total_gib", m.total_gib}};
}

json axes_json(const mesh_prediction& p) {
  json out = json::array();
  for (const auto& a : p.axes)
    out.push_back({{"axis", to_string(a.axis)},
                   {"size", a.size},
                   {"placement", a.placement},
                   {"role", a.role},
                   {"collectives_s", a.comm_s},
                   {"exposed_s", a.exposed_s},
                   {"intensity", a.intensity},
                   {"hardware_intensity", a.hardware_intensity},
                   {"compute_bound", a.compute_bound}});
  return out;
}

json ops_json(const mesh_prediction& p) {
  json out = json::array();
  for (const auto& op : p.ops)
    out.push_back({{"name", op.name},
                   {"category", op.category},
                   {"bound_by", op.bound_by},
                   {"seconds", op.seconds},
                   {"exposed_s", op.exposed_s}});
  return out;
}

} // namespace

json mesh_job_json(const experiment_spec& e) {
  return {{"model", e.model.name},
          {"cluster", e.cluster.name},
          {"device", e.cluster.device.name},
          {"slice", to_string(tpu_slice{e.slice.dims, 1})},
          {"num_slices", e.slice.num_slices},
          {"chips", e.slice.chips()},
          {"global_batch", e.workload.global_batch},
          {"seq", e.workload.seq_len},
          {"accumulation_steps", e.workload.accumulation_steps},
          {"remat", to_string(e.workload.remat)},
          {"precision", to_string(e.prec)}};
}

json mesh_prediction_json(const mesh_prediction& p) {
  json j = {{"mesh", to_string(p.ici)},
            {"dcn_mesh", to_string(p.dcn)},
            {"step_time_s", p.step_s},
            {"tflops_per_device", p.tflops_per_chip},
            {"mfu", p.mfu},
            {"mfu_causal", p.mfu_causal},
            {"tokens_per_s", p.tokens_per_s},
            {"peak_memory_gib", p.memory.total_gib},
            {"memory_limit_gib", p.memory.limit_gib},
            {"fits", p.memory.fits},
            {"limiting_factor", p.limiting},
            {"exact_placement", p.exact_placement},
            {"time", time_json(p)},
            {"memory", memory_json(p.memory)},
            {"axes", axes_json(p)},
            {"ops", ops_json(p)}};
  return j;
}

std::string describe_mesh_job(const experiment_spec& e) {
  return fmt::format("{} on {} {} {}({}), batch {} x seq {}{}, remat {}", e.model.name,
                     e.cluster.device.name, to_string(tpu_slice{e.slice.dims, 1}),
                     e.slice.num_slices > 1 ? fmt::format("x {} slices ", e.slice.num_slices) : "",
                     e.cluster.name, e.workload.global_batch, e.workload.seq_len,
                     e.workload.accumulation_steps > 1
                         ? fmt::format(" in {} micro-steps", e.workload.accumulation_steps)
                         : "",
                     to_string(e.workload.remat));
}

void write_mesh_prediction(std::ostream& out, const mesh_prediction& p) {
  out << "throughput\n"
      << fmt::format("  step time          {:>10.3f} s\n", p.step_s)
      << fmt::format("  TFLOP/s per chip   {:>10.1f}   (model FLOPs, attention counted whole)\n",
                     p.tflops_per_chip)
      << fmt::format("  MFU                {:>9.1f}%   (causal attention counted half: {:.1f}%)\n",
                     100 * p.mfu, 100 * p.mfu_causal)
      << fmt::format("  tokens/s           {:>10.0f}\n\n", p.tokens_per_s);
  const auto& m = p.memory;
  out << "memory per chip (GiB)\n"
      << fmt::format("  parameters {:.2f}, gradients {:.2f}, optimizer {:.2f}, activations "
                     "{:.2f}, workspace {:.2f}\n",
                     m.params_gib, m.grads_gib, m.optimizer_gib, m.activations_gib,
                     m.workspace_gib)
      << fmt::format("  peak {:.2f} of {:.2f} usable: {}\n\n", m.total_gib, m.limit_gib,
                     m.fits ? "fits" : "does NOT fit");
  out << "time per step (s)\n"
      << fmt::format("  compute-bound ops  {:>10.3f}\n", p.compute_s)
      << fmt::format("  HBM-bound ops      {:>10.3f}\n", p.hbm_s)
      << fmt::format("  collectives        {:>10.3f}   ({:.3f} exposed)\n", p.comm_s,
                     p.exposed_comm_s)
      << fmt::format("  limiting factor: {}\n", p.limiting);
  if (!p.axes.empty())
    out << "\naxes\n";
  for (const auto& a : p.axes)
    out << fmt::format("  {:<8} {:>4}  {:<24} {:>8.3f} s ({:.3f} exposed)  {}\n",
                       to_string(a.axis), a.size, a.placement, a.comm_s, a.exposed_s, a.role);
  out << "\nlongest ops\n";
  for (std::size_t i = 0; i < p.ops.size() && i < 5; ++i)
    out << fmt::format("  {:>8.3f} s  {:<5} {}\n", p.ops[i].seconds, p.ops[i].bound_by,
                       p.ops[i].name);
}

} // namespace paratune::cli
