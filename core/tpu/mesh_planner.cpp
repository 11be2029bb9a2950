#include "core/tpu/mesh_planner.hpp"

#include <algorithm>
#include <cctype>
#include <tuple>

namespace paratune {

namespace {

void factor_into(int n, int parts, std::vector<int>& prefix,
                 std::vector<std::vector<int>>& out) {
  if (parts == 1) {
    prefix.push_back(n);
    out.push_back(prefix);
    prefix.pop_back();
    return;
  }
  for (int f = 1; f <= n; ++f) {
    if (n % f != 0)
      continue;
    prefix.push_back(f);
    factor_into(n / f, parts - 1, prefix, out);
    prefix.pop_back();
  }
}

std::vector<tpu_mesh> meshes_over(int chips, const std::vector<mesh_axis>& axes) {
  std::vector<tpu_mesh> out;
  for (const auto& sizes : ordered_factorizations(chips, static_cast<int>(axes.size()))) {
    tpu_mesh m;
    for (std::size_t i = 0; i < axes.size(); ++i)
      m.set(axes[i], sizes[i]);
    out.push_back(m);
  }
  return out;
}

// "attention heads 32 does not divide over model = 64" -> "attention heads
// does not divide over model": the kind of problem without its numbers.
std::string problem_kind(const std::string& problem) {
  std::string out;
  bool skipping = false;
  for (char c : problem) {
    if (std::isdigit(static_cast<unsigned char>(c)) || (skipping && c == ' ')) {
      skipping = std::isdigit(static_cast<unsigned char>(c)) != 0;
      continue;
    }
    skipping = false;
    out += c;
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == '='))
    out.pop_back();
  return out;
}

void count_problems(const mesh_prediction& p, mesh_plan_result& res) {
  ++res.invalid;
  for (const auto& problem : p.problems) {
    const auto kind = problem_kind(problem);
    if (res.rejected_by_rule[kind]++ == 0)
      res.rule_example[kind] = to_string(p.ici) + ": " + problem;
  }
}

} // namespace

std::vector<std::vector<int>> ordered_factorizations(int n, int parts) {
  std::vector<std::vector<int>> out;
  std::vector<int> prefix;
  if (n >= 1 && parts >= 1)
    factor_into(n, parts, prefix, out);
  return out;
}

std::vector<tpu_mesh> planner_ici_meshes(const model_spec& m, int chips_per_slice) {
  std::vector<mesh_axis> ici_axes{mesh_axis::data, mesh_axis::fsdp, mesh_axis::seq,
                                  mesh_axis::model};
  if (m.is_moe())
    ici_axes.insert(ici_axes.end() - 1, mesh_axis::expert);
  return meshes_over(chips_per_slice, ici_axes);
}

mesh_plan_result plan_meshes(const mesh_plan_request& r) {
  const auto icis = planner_ici_meshes(r.model, r.slice.chips_per_slice());
  const auto dcns = meshes_over(r.slice.num_slices, {mesh_axis::data, mesh_axis::fsdp});
  mesh_plan_result res;
  std::vector<std::tuple<double, std::size_t, std::size_t>> fitting;  // step, ici, dcn
  for (std::size_t i = 0; i < icis.size(); ++i)
    for (std::size_t d = 0; d < dcns.size(); ++d) {
      ++res.candidates;
      const auto p =
        predict_mesh(r.model, r.cluster, r.slice, icis[i], dcns[d], r.workload, r.calibration);
      if (!p.valid())
        count_problems(p, res);
      else if (!p.memory.fits)
        ++res.memory_rejected;
      else
        fitting.emplace_back(p.step_s, i, d);
    }
  res.fitting = fitting.size();
  std::sort(fitting.begin(), fitting.end());
  for (std::size_t k = 0; k < fitting.size() && k < r.top; ++k) {
    const auto& [step, i, d] = fitting[k];
    res.top.push_back(
      {predict_mesh(r.model, r.cluster, r.slice, icis[i], dcns[d], r.workload, r.calibration)});
  }
  return res;
}

} // namespace paratune
