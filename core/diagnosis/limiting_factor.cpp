#include "core/diagnosis/limiting_factor.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace paratune {

namespace {

// The step share a KPI says the class takes, in percent: duty cycle is the
// busy share, so its idle complement is what input_host takes.
double step_share_percent(const kpi_check& k) {
  return k.name == "duty_cycle" ? 100 - k.value : k.value;
}

// Why the Analyzer named the class though its share reads ok: the longest
// operations it counts.
std::string why_named(const diagnosis_report& r) {
  int same = 0;
  for (const auto& t : r.top_ops)
    same += bottleneck_of(t.resource) == r.bottleneck;
  if (same > 0)
    return fmt::format("{} of the {} longest operations are {}", same, r.top_ops.size(),
                       to_string(r.bottleneck));
  return "it scores highest of the classes";
}

// The most removing all of a share's time could give: 1 / (1 - share).
double best_speedup(double share_percent) {
  return share_percent < 100 ? 100 / (100 - share_percent) : 0;
}

double class_share(const diagnosis_report& r, const char* cls) {
  auto it = r.time_by_class.find(cls);
  return it == r.time_by_class.end() ? 0 : it->second;
}

std::string measured_shares(const diagnosis_report& r) {
  const double host = class_share(r, to_string(op_class::host_transfer));
  return fmt::format("compute {:.0f}%, HBM {:.0f}%, collectives {:.0f}%",
                     100 * class_share(r, "compute"), 100 * class_share(r, "hbm_bandwidth"),
                     100 * class_share(r, "communication"))
         + (host > 0 ? fmt::format(", host-memory copies {:.0f}%", 100 * host) : "")
         + " of its op time";
}

std::string model_shares(const mesh_prediction& p) {
  if (p.step_s <= 0)
    return "no step time";
  return fmt::format("compute {:.0f}%, HBM {:.0f}%, exposed collectives {:.0f}% of its {:.3f} s "
                     "step ({:.0f}% of its collective time hidden under compute)",
                     100 * p.compute_s / p.step_s, 100 * p.hbm_s / p.step_s,
                     100 * p.exposed_comm_s / p.step_s, p.step_s,
                     p.comm_s > 0 ? 100 * (1 - p.exposed_comm_s / p.comm_s) : 0.0);
}

// Axes whose sizes differ between two meshes.
int axes_apart(const tpu_mesh& a, const tpu_mesh& b) {
  int n = 0;
  for (auto axis : all_mesh_axes)
    n += a.at(axis) != b.at(axis);
  return n;
}

} // namespace

std::vector<std::string> share_kpis_of(bottleneck_class b) {
  switch (b) {
    case bottleneck_class::communication: return {"communication", "exposed_communication"};
    case bottleneck_class::input_host: return {"duty_cycle", "infeed", "input"};
    case bottleneck_class::pipeline_bubble: return {"pipeline_bubble"};
    case bottleneck_class::memory_capacity: return {"memory"};
    default: return {};
  }
}

bool flag_bottleneck_kpis(diagnosis_report& r) {
  const auto names = share_kpis_of(r.bottleneck);
  std::vector<kpi_check*> shares;
  for (auto& k : r.kpis)
    if (std::find(names.begin(), names.end(), k.name) != names.end())
      shares.push_back(&k);
  const bool all_ok = !shares.empty()
                      && std::all_of(shares.begin(), shares.end(),
                                     [](const kpi_check* k) { return k->status == "ok"; });
  if (!all_ok)
    return false;
  for (auto* k : shares) {
    const double share = step_share_percent(*k);
    k->status = "warn";
    k->note += fmt::format("; healthy on its own, but the diagnosed bottleneck ({}): removing "
                           "all of its {:.2f}% would gain at most x{:.3f}",
                           why_named(r), share, best_speedup(share));
  }
  return true;
}

bottleneck_class model_limiting_class(const mesh_prediction& p) {
  bottleneck_class b = bottleneck_class::unknown;
  parse_bottleneck(p.limiting, b);
  return b;
}

limiting_comparison compare_limiting(const diagnosis_report& r, const mesh_prediction& model) {
  limiting_comparison c;
  c.measured = r.bottleneck;
  c.predicted = model_limiting_class(model);
  c.agree = c.measured == c.predicted;
  if (c.agree) {
    c.explanation = std::string("the profile and the mesh model (predict -e, plan) agree: ")
                    + to_string(c.measured) + " limits this mesh";
    return c;
  }
  c.explanation = std::string("the profile names ") + to_string(c.measured)
                  + " and the mesh model (predict -e, plan) " + to_string(c.predicted)
                  + " for this mesh: the profile classes each measured op by what bounds it (a "
                    "collective streaming HBM counts as HBM) and weighs its longest ops as much "
                    "as all of them ("
                  + measured_shares(r) + "); the model splits the step it predicts ("
                  + model_shares(model) + ")";
  return c;
}

std::string compare_with_plan(const tpu_mesh& current, const mesh_prediction& current_model,
                              const std::optional<mesh_prediction>& plan_best,
                              const std::vector<proposal>& proposals) {
  if (!plan_best)
    return "plan finds no mesh of this slice that runs the job and fits";
  const auto& best = plan_best->ici;
  const std::string name = to_string(best);
  if (!proposals.empty() && proposals.front().mesh && *proposals.front().mesh == best)
    return "plan's fastest mesh, " + name + ", is the first proposal";
  for (const auto& p : proposals)
    if (p.mesh && *p.mesh == best)
      return fmt::format("plan's fastest mesh, {}, is proposal {}: plan ranks by the model "
                         "alone, the proposals first by whether they attack the diagnosed "
                         "bottleneck",
                         name, p.rank);
  if (best == current)
    return "plan's fastest mesh is the current one, " + name
           + ": the model predicts no mesh faster, the proposals rest on the profile";
  const double gain = plan_best->step_s > 0 ? current_model.step_s / plan_best->step_s : 0;
  const int apart = axes_apart(best, current);
  if (apart <= 2)
    return fmt::format("plan's fastest mesh, {}, is one move from the current {} (predicted "
                       "x{:.2f} by the uncalibrated model) but not proposed: the proposals come "
                       "first by whether they attack the diagnosed bottleneck, and pass the "
                       "memory screen at the measured peak",
                       name, to_string(current), gain);
  return fmt::format("plan's fastest mesh, {}, differs from the current {} on {} axes "
                     "(predicted x{:.2f} by the uncalibrated model): the proposals move one "
                     "factor from one axis to another, two axes at a time, from the measured "
                     "mesh, so they do not reach it; run it as a trial to test the model",
                     name, to_string(current), apart, gain);
}

void rank_confidence(std::vector<proposal>& proposals) {
  for (std::size_t i = 1; i < proposals.size(); ++i)
    proposals[i].confidence = std::min(proposals[i].confidence, proposals[i - 1].confidence);
}

} // namespace paratune
