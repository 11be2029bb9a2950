// TPU proposals: single moves of the mesh, predicted by the mesh model.
// A move takes a factor of one axis and gives it to another, so every
// candidate spans the same chips; ASAP's proposals and the experts' changes
// are all of this shape.
#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

#include "core/tpu/mesh_model.hpp"
#include "core/diagnosis/mesh_rationale.hpp"
#include "core/diagnosis/proposal_candidates.hpp"

namespace paratune {

namespace {

// Axes a move may take from: the ones the job names. `replica` is the axis
// across slices; inside one slice it would only duplicate `data`.
std::vector<mesh_axis> movable_axes(const experiment_spec& exp) {
  std::vector<mesh_axis> out;
  for (auto a : exp.mesh.listed())
    if (a != mesh_axis::replica || exp.mesh.at(a) > 1)
      out.push_back(a);
  return out;
}

// Axes a move may give to: the named ones plus tensor and sequence
// parallelism, and FSDP when no batch axis is named (a single-axis mesh
// must have somewhere to go).
std::vector<mesh_axis> target_axes(const experiment_spec& exp) {
  auto out = movable_axes(exp);
  auto add = [&](mesh_axis a) {
    if (std::find(out.begin(), out.end(), a) == out.end())
      out.push_back(a);
  };
  add(mesh_axis::model);
  add(mesh_axis::seq);
  if (exp.mesh.at(mesh_axis::data) == 1 && exp.mesh.at(mesh_axis::fsdp) == 1)
    add(mesh_axis::fsdp);
  if (exp.model.is_moe())
    add(mesh_axis::expert);
  return out;
}

std::vector<tpu_mesh> single_moves(const experiment_spec& exp) {
  std::vector<tpu_mesh> out;
  const auto targets = target_axes(exp);
  for (auto from : movable_axes(exp))
    for (auto to : targets) {
      if (from == to)
        continue;
      const int size = exp.mesh.at(from);
      for (int f = 2; f <= size; ++f) {
        if (size % f != 0)
          continue;
        tpu_mesh m = exp.mesh;
        m.set(from, size / f);
        m.set(to, exp.mesh.at(to) * f);
        out.push_back(m);
      }
    }
  return out;
}

double hbm_gb(const mesh_prediction& p) {
  double bytes = 0;
  for (const auto& op : p.ops)
    bytes += op.hbm_bytes;
  return bytes / 1e9;
}

const mesh_axis_report* heaviest_axis(const mesh_prediction& p) {
  const mesh_axis_report* best = nullptr;
  for (const auto& a : p.axes)
    if (!best || a.exposed_s > best->exposed_s)
      best = &a;
  return best && best->exposed_s > 0 ? best : nullptr;
}

struct metric_fn {
  std::string name;
  double (*value)(const mesh_prediction&);
};

metric_fn mesh_metric_for(bottleneck_class b) {
  switch (b) {
    case bottleneck_class::communication:
      return {"exposed collective time (s/step)",
              [](const mesh_prediction& p) { return p.exposed_comm_s; }};
    case bottleneck_class::hbm_bandwidth:
      return {"HBM traffic per chip (GB/step)", hbm_gb};
    case bottleneck_class::compute:
      return {"compute-bound op time (s/step)",
              [](const mesh_prediction& p) { return p.compute_s; }};
    case bottleneck_class::memory_capacity:
      return {"peak HBM per chip (GiB)",
              [](const mesh_prediction& p) { return p.memory.total_gib; }};
    default:
      return {"step time (s)", [](const mesh_prediction& p) { return p.step_s; }};
  }
}

// Whether a move attacks the diagnosed bottleneck: it must lower the
// bottleneck's quantity, and for communication shrink the axis that carries
// the most exposed collective time.
bool is_targeted(bottleneck_class b, const mesh_prediction& base, const mesh_prediction& c,
                 const metric_fn& metric) {
  if (metric.value(c) >= metric.value(base))
    return false;
  if (b == bottleneck_class::communication) {
    const auto* heavy = heaviest_axis(base);
    return heavy && c.ici.at(heavy->axis) * c.dcn.at(heavy->axis) < heavy->size;
  }
  if (b == bottleneck_class::hbm_bandwidth)
    return metric.value(c) < 0.95 * metric.value(base);
  return true;
}

candidate make_candidate(const experiment_spec& exp, const mesh_prediction& p,
                         const metric_fn& metric) {
  candidate c;
  c.mesh = p.ici;
  c.change = describe_mesh_change(exp.mesh, p.ici);
  for (auto a : all_mesh_axes) {
    if (p.ici.at(a) > exp.mesh.at(a))
      c.grown.push_back(to_string(a));
    if (p.ici.at(a) < exp.mesh.at(a))
      c.shrunk.push_back(to_string(a));
  }
  c.step_s = p.step_s;
  c.mfu = p.mfu;
  c.memory_gib = p.memory.total_gib;
  c.memory_limit_gib = p.memory.limit_gib;
  c.metric = metric.name;
  c.metric_after = metric.value(p);
  return c;
}

// Measurements beat the model: a mesh that ran fits. A measured peak sets
// the scale of the model's memory; without one, a baseline the model puts
// over HBM is scaled down just enough to fit, the least correction the
// evidence demands. Every candidate is screened with the same factor.
double memory_correction(const mesh_prediction& base, const baseline_evidence& evidence,
                         std::vector<std::string>& notes) {
  const auto& m = base.memory;
  if (!base.valid() || m.total_gib <= 0)
    return 1;
  if (evidence.memory_used_gib > 0) {
    const double f = evidence.memory_used_gib / m.total_gib;
    notes.push_back(fmt::format("memory: the profile measured {:.1f} GiB per chip where the "
                                "model predicts {:.1f} GiB; every layout's memory is scaled by "
                                "x{:.2f} before the HBM screen",
                                evidence.memory_used_gib, m.total_gib, f));
    return f;
  }
  if (evidence.ran && !m.fits) {
    const double f = m.limit_gib / m.total_gib;
    notes.push_back(fmt::format("memory: the current mesh ran, although the model puts it at "
                                "{:.1f} GiB of {:.1f} GiB usable; the model's memory is scaled "
                                "by x{:.2f} so that it fits, for every layout screened",
                                m.total_gib, m.limit_gib, f));
    return f;
  }
  return 1;
}

// The corrected figure replaces the model's, verdict included, so that what
// is shown is what was screened.
void scale_memory(mesh_prediction& p, double factor) {
  p.memory.total_gib *= factor;
  p.memory.fits = p.memory.total_gib <= p.memory.limit_gib;
}

enum class mesh_screen { fits, invalid, too_big };

// One mesh predicted and screened against the (corrected) baseline `base`:
// the single moves and a model's own mesh go through here alike.
mesh_screen screen_mesh(const experiment_spec& exp, bottleneck_class bottleneck,
                        const mesh_prediction& base, const metric_fn& metric,
                        const candidate_pool& pool, const tpu_mesh& ici, const tpu_mesh& dcn,
                        candidate& out) {
  tpu_mesh shown = ici;
  shown.shown = exp.mesh.shown;  // print in the job's vocabulary
  auto p = predict_mesh(exp.model, exp.cluster, exp.slice, shown, dcn, exp.workload);
  if (!p.valid())
    return mesh_screen::invalid;
  scale_memory(p, pool.memory_correction);
  if (!p.memory.fits)
    return mesh_screen::too_big;
  out = make_candidate(exp, p, metric);
  out.metric_before = pool.baseline.metric_after;
  out.targeted = base.valid() && is_targeted(bottleneck, base, p, metric);
  describe_mesh_candidate(exp, bottleneck, base, p, out);
  return mesh_screen::fits;
}

mesh_prediction corrected_baseline(const experiment_spec& exp, double correction) {
  auto base = predict_mesh(exp.model, exp.cluster, exp.slice, exp.mesh, exp.dcn_mesh,
                           exp.workload);
  scale_memory(base, correction);
  return base;
}

} // namespace

std::optional<candidate> mesh_candidate(const experiment_spec& exp,
                                        const diagnosis_report& report,
                                        const candidate_pool& pool, const tpu_mesh& ici,
                                        const tpu_mesh& dcn) {
  const auto base = corrected_baseline(exp, pool.memory_correction);
  candidate c;
  if (screen_mesh(exp, report.bottleneck, base, mesh_metric_for(report.bottleneck), pool, ici,
                  dcn, c)
      != mesh_screen::fits)
    return std::nullopt;
  return c;
}

candidate_pool mesh_candidates(const experiment_spec& exp, const diagnosis_report& report,
                               const baseline_evidence& evidence) {
  candidate_pool pool;
  const auto metric = mesh_metric_for(report.bottleneck);
  auto base = predict_mesh(exp.model, exp.cluster, exp.slice, exp.mesh, exp.dcn_mesh,
                           exp.workload);
  pool.memory_correction = memory_correction(base, evidence, pool.notes);
  scale_memory(base, pool.memory_correction);
  pool.baseline = make_candidate(exp, base, metric);
  pool.baseline.metric_before = pool.baseline.metric_after;
  if (!base.valid())
    pool.notes.push_back("the current mesh cannot run as given: " + base.problems.front());
  pool.baseline_fits = base.valid() && report.bottleneck != bottleneck_class::memory_capacity
                       && (evidence.ran || base.memory.fits);
  int invalid = 0, too_big = 0;
  for (const auto& mesh : single_moves(exp)) {
    candidate c;
    switch (screen_mesh(exp, report.bottleneck, base, metric, pool, mesh, exp.dcn_mesh, c)) {
      case mesh_screen::invalid: ++invalid; break;
      case mesh_screen::too_big: ++too_big; break;
      case mesh_screen::fits: pool.candidates.push_back(std::move(c)); break;
    }
  }
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "%zu single mesh moves considered: %zu valid and fitting, %d with sizes that do "
                "not divide, %d over HBM",
                pool.candidates.size() + invalid + too_big, pool.candidates.size(), invalid,
                too_big);
  pool.notes.push_back(buf);
  return pool;
}

} // namespace paratune
