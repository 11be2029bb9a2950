#include "core/diagnosis/next_mesh_trial.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/tpu/mesh_planner.hpp"

namespace paratune {

namespace {

bool was_run(const tpu_mesh& m, const std::vector<tpu_mesh>& tried) {
  return std::find(tried.begin(), tried.end(), m) != tried.end();  // by sizes
}

const mesh_step* first_untried(const std::vector<mesh_step>& steps,
                               const std::vector<tpu_mesh>& tried, bool exploratory = false) {
  for (const auto& s : steps)
    if (s.exploratory == exploratory && !was_run(s.mesh, tried))
      return &s;
  return nullptr;
}

} // namespace

std::vector<mesh_step> planned_mesh_steps(const experiment_spec& exp, std::size_t count,
                                          const mesh_calibration& cal) {
  const auto plan = plan_meshes({exp.model, exp.cluster, exp.slice, exp.workload, count, cal});
  std::vector<mesh_step> out;
  for (std::size_t i = 0; i < plan.top.size(); ++i) {
    out.push_back({plan.top[i].prediction.ici, fmt::format("The planner's {} mesh (predicted {:.0f} ms per step)",
                                  i == 0 ? std::string("fastest")
                                         : fmt::format("#{} fastest", i + 1),
                                  plan.top[i].prediction.step_s * 1000),
                   false, plan.top[i].prediction.step_s});
  }
  return out;
}

mesh_step first_mesh_trial(const experiment_spec& exp, const std::vector<mesh_step>& planned) {
  mesh_step job{exp.mesh, "The job's own mesh"};
  if (planned.empty() || planned.front().mesh == exp.mesh)
    return job;
  const auto p =
    predict_mesh(exp.model, exp.cluster, exp.slice, exp.mesh, exp.dcn_mesh, exp.workload);
  const bool runs = p.valid() && p.memory.fits;
  if (runs && planned.front().predicted_step_s <= 0)
    return job;  // a plan without predictions: nothing says the job's mesh is slower
  if (runs && planned.front().predicted_step_s > (1 - first_jump_min_gain) * p.step_s)
    return job;
  return planned.front();
}

std::string job_mesh_verdict(const experiment_spec& exp) {
  const auto p =
    predict_mesh(exp.model, exp.cluster, exp.slice, exp.mesh, exp.dcn_mesh, exp.workload);
  if (!p.valid()) {
    std::string rules;
    for (const auto& problem : p.problems)
      rules += (rules.empty() ? "" : "; ") + problem;
    return "it breaks the mesh rules: " + rules;
  }
  if (!p.memory.fits)
    return fmt::format("predicted not to fit: a peak of {:.1f} GiB per chip against {:.1f} GiB "
                       "of usable HBM",
                       p.memory.total_gib, p.memory.limit_gib);
  return "";
}

std::optional<mesh_step> next_mesh_trial(const std::vector<mesh_step>& planned,
                                         const std::vector<mesh_step>* best_run,
                                         const std::vector<mesh_step>& latest,
                                         const std::vector<tpu_mesh>& tried) {
  const mesh_step* s = nullptr;
  if (!planned.empty() && !was_run(planned.front().mesh, tried)) {
    s = &planned.front();
    // Where the diagnosis proposed the same mesh, its reason is the one given.
    for (const auto* set : {best_run, &latest})
      if (set && s == &planned.front())
        for (const auto& p : *set)
          if (p.mesh == s->mesh) {
            s = &p;
            break;
          }
  }
  if (!s && best_run)
    s = first_untried(*best_run, tried);
  if (!s)
    s = first_untried(latest, tried);
  if (!s)
    s = first_untried(planned, tried);
  if (!s && best_run)
    s = first_untried(*best_run, tried, true);
  if (!s)
    s = first_untried(latest, tried, true);
  if (!s)
    return std::nullopt;
  return *s;
}

} // namespace paratune
