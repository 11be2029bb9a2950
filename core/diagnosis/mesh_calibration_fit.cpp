#include "core/diagnosis/mesh_calibration_fit.hpp"

#include <algorithm>
#include <cmath>

namespace paratune {

namespace {

constexpr double min_scale = 0.25, max_scale = 4;

double share_of(const std::map<std::string, double>& shares, const char* cls) {
  auto it = shares.find(cls);
  return it == shares.end() ? 0 : it->second;
}

/// measured / predicted, bounded; 1 when either side is nothing.
double ratio(double measured_s, double predicted_s) {
  if (measured_s <= 0 || predicted_s <= 0)
    return 1;
  return std::clamp(measured_s / predicted_s, min_scale, max_scale);
}

/// How far the model under `cal` is from what was measured, in shares of
/// the step: the step itself and the exposed collective time.
double misfit(const experiment_spec& exp, const mesh_calibration& cal, double step_s,
              double comm_s) {
  const auto p =
    predict_mesh(exp.model, exp.cluster, exp.slice, exp.mesh, exp.dcn_mesh, exp.workload, cal);
  return (std::abs(p.step_s - step_s) + std::abs(p.exposed_comm_s - comm_s)) / step_s;
}

/// The value of `scale` (a member of `cal`) that fits best, the others held:
/// a scan from where it is outwards in twelfths of an octave over [1/4, 4]
/// (a scale the run cannot tell, collectives all overlapped, stays where it
/// is unless a change explains at least 0.5% of the step more), then in
/// ninety-sixths of an octave around the best.
void fit_scale(const experiment_spec& exp, mesh_calibration& cal, double mesh_calibration::*scale,
               double step_s, double comm_s) {
  double best = cal.*scale, best_error = misfit(exp, cal, step_s, comm_s);
  auto scan = [&](double around, int steps, double octave_part, double worth) {
    for (int k = 1; k <= steps; ++k)
      for (double c : {around * std::exp2(k / octave_part), around * std::exp2(-k / octave_part)}) {
        if (c < min_scale || c > max_scale)
          continue;
        auto trial = cal;
        trial.*scale = c;
        const double error = misfit(exp, trial, step_s, comm_s);
        if (error + worth < best_error) {
          best = c;
          best_error = error;
        }
      }
  };
  scan(1, 24, 12, 0.005);
  scan(best, 8, 96, 0);
  cal.*scale = best;
}

} // namespace

std::optional<mesh_calibration> fit_mesh_calibration(const experiment_spec& exp, double step_ms,
                                                     const std::map<std::string, double>& time_by_class) {
  const double compute_share = share_of(time_by_class, "compute");
  if (step_ms <= 0 || compute_share <= 0)
    return std::nullopt;
  const auto model =
    predict_mesh(exp.model, exp.cluster, exp.slice, exp.mesh, exp.dcn_mesh, exp.workload);
  if (!model.valid() || model.compute_s <= 0)
    return std::nullopt;
  const double step_s = step_ms / 1000;
  // Compute-bound ops are the profile's own, so their time gives the
  // compute scale directly. HBM-bound time is not: a profile counts the
  // issue of asynchronous collectives there too. The HBM and collective
  // scales are the pair under which the model gives the measured step and
  // the measured exposed collective time, found a scale at a time.
  mesh_calibration cal;
  cal.compute_scale = ratio(step_s * compute_share, model.compute_s);
  const double comm_s = step_s * share_of(time_by_class, "communication");
  for (int round = 0; round < 3; ++round) {
    fit_scale(exp, cal, &mesh_calibration::comm_scale, step_s, comm_s);
    fit_scale(exp, cal, &mesh_calibration::hbm_scale, step_s, comm_s);
  }
  return cal;
}

mesh_calibration combine_calibrations(const std::vector<mesh_calibration>& fits) {
  mesh_calibration out;
  if (fits.empty())
    return out;
  double c = 0, h = 0, n = 0;
  for (const auto& f : fits) {
    c += std::log(f.compute_scale);
    h += std::log(f.hbm_scale);
    n += std::log(f.comm_scale);
  }
  const double k = double(fits.size());
  out.compute_scale = std::exp(c / k);
  out.hbm_scale = std::exp(h / k);
  out.comm_scale = std::exp(n / k);
  return out;
}

} // namespace paratune
