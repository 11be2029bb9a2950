#include "decisions/tpu_session_step.hpp"

#include <algorithm>

#include "core/diagnosis/mesh_calibration_fit.hpp"
#include "core/pool_placement.hpp"
#include "core/tpu/mesh_model.hpp"
#include "decisions/trial_choice.hpp"
#include "frameworks/framework.hpp"
#include "ledger/tpu_runs.hpp"
#include "messages/conversions.hpp"

namespace paratune {

namespace {

using tpu_rows = std::map<int, wire::tpu_trial_row>;

bool ended(const wire::tpu_trial_row& r) { return r.ended_ms > 0; }

std::vector<mesh_step> steps_of(const wire::tpu_trial_row& r) {
  std::vector<mesh_step> out;
  for (const auto& p : r.proposed)
    if (!p.mesh.empty())
      out.push_back({parse_mesh(p.mesh), p.title, p.exploratory});
  return out;
}

/// The planner's fastest meshes, ranked under what the diagnosed runs
/// said of the model's error.
std::vector<mesh_step> planned_of(const tpu_search& s, const tpu_rows& rows) {
  std::vector<mesh_calibration> fits;
  for (const auto& [n, r] : rows)
    if (r.calibrated)
      fits.push_back({r.compute_scale, r.hbm_scale, r.comm_scale});
  return planned_mesh_steps(*s.experiment, std::size_t(std::max(1, s.budget)),
                            combine_calibrations(fits));
}

/// The next mesh not yet run (next_mesh_trial), or none.
std::optional<mesh_step> next_mesh(const tpu_search& s, const tpu_rows& rows) {
  const auto planned = planned_of(s, rows);
  if (rows.empty())
    return first_mesh_trial(*s.experiment, planned);
  std::vector<tpu_mesh> tried;
  const wire::tpu_trial_row* latest = nullptr; // the latest ended run that proposed a mesh
  for (const auto& [n, r] : rows) {
    tried.push_back(parse_mesh(r.mesh));
    if (ended(r) && !steps_of(r).empty()
        && (!latest || r.ended_ms > latest->ended_ms
            || (r.ended_ms == latest->ended_ms && r.trial > latest->trial)))
      latest = &r;
  }
  // From the best run so far, as its diagnosis proposes; when all of those
  // ran, from the latest diagnosis.
  std::optional<std::vector<mesh_step>> best_steps;
  if (const int best = tpu_best_ended(rows); best > 0)
    best_steps = steps_of(rows.at(best));
  return next_mesh_trial(planned, best_steps ? &*best_steps : nullptr,
                         latest ? steps_of(*latest) : std::vector<mesh_step>{}, tried);
}

/// Ended runs that failed for a reason outside their mesh and are due a
/// run again: not retried yet, and their mesh ran fewer than
/// max_runs_per_mesh times before. In trial order.
std::vector<const wire::tpu_trial_row*> retries_due(const tpu_search& s,
                                                    const session_ledger& ledger,
                                                    const tpu_rows& rows) {
  std::vector<const wire::tpu_trial_row*> due;
  for (const auto& [n, r] : rows) {
    if (!ended(r) || !r.transient || ledger.retried().count(n))
      continue;
    int runs_before = 0;
    bool retried = false;
    for (const auto& [m, other] : rows) {
      runs_before += m < n && other.mesh == r.mesh;
      retried = retried || other.retry_of == n;
    }
    if (!retried && runs_before + 1 < s.max_runs_per_mesh)
      due.push_back(&r);
  }
  return due;
}

/// The mesh chosen after the latest run, named on its row even when the
/// budget leaves it unrun; none while a retry comes first.
std::string next_title(const tpu_search& s, const session_ledger& ledger, const tpu_rows& rows) {
  if (!retries_due(s, ledger, rows).empty())
    return {};
  const auto next = next_mesh(s, rows);
  return next ? next->title : std::string();
}

tpu_rows with_row(tpu_rows rows, const wire::tpu_trial_row& row) {
  rows[row.trial] = row;
  return rows;
}

/// The row a trial's result is written into: the one stored when it was
/// proposed, or one made from the result.
wire::tpu_trial_row row_before(const experiment_spec& exp, const tpu_rows& rows, int n,
                               const wire::trial_result& r) {
  if (const auto it = rows.find(n); it != rows.end())
    return it->second;
  wire::tpu_trial_row row;
  row.trial = n;
  if (const auto mesh = r.config.find("mesh"); mesh != r.config.end())
    row.mesh = mesh->second;
  row.pool = r.pool;
  row.retry_of = r.retry_of;
  row.started_ms = r.started_at_ms;
  row.job_mesh = !row.mesh.empty() && parse_mesh(row.mesh) == exp.mesh;
  return row;
}

/// A simulated trial that failed without a single line its framework
/// reads: not paratune-tpu-sim, or a broken one. The session cannot learn
/// from it, nor from any other trial it would run.
std::optional<std::string> not_a_simulator(const session_ledger& ledger,
                                           const wire::trial_result& r) {
  const auto* pool = wire::pool_named(*ledger.runner_job(), r.pool);
  if (!pool || pool->kind != pool_kind::simulated || r.status != trial_status::failed
      || r.iterations_logged > 0 || r.error_kind != failure_kind::none)
    return std::nullopt;
  return "paratune-tpu-sim printed no MaxText line for trial " + std::to_string(r.trial)
         + " (exit status " + std::to_string(r.exit_code)
         + "): " + (r.log_tail.empty() ? std::string() : r.log_tail.back());
}

} // namespace

int tpu_best_ended(const tpu_rows& rows) {
  std::vector<wire::tpu_trial_row> done;
  for (const auto& [n, r] : rows)
    if (ended(r))
      done.push_back(r);
  return tpu_fastest_run(done);
}

wire::tpu_trial_row tpu_row_of_result(const experiment_spec& exp, wire::tpu_trial_row row,
                                      const wire::trial_result& r) {
  if (!r.pool.empty())
    row.pool = r.pool;
  row.chip_hours = r.gpu_hours; // the runner counts the slice's chips as its devices
  const auto mfu_of = [&](double step_ms) {
    return measured_mesh_mfu(exp.model, exp.cluster, exp.slice, parse_mesh(row.mesh),
                             exp.dcn_mesh, exp.workload, step_ms);
  };
  switch (r.status) {
    case trial_status::succeeded:
      // Its profile is written at its end: the diagnosis comes next.
      row.step_time_ms = r.iteration_ms;
      row.mfu = mfu_of(r.iteration_ms);
      row.diagnosing = true;
      return row;
    case trial_status::stopped:
      // What it measured until then, never diagnosed (no profile).
      row.stopped = r.reason.empty() ? std::string(to_string(r.stop)) : r.reason;
      row.step_time_ms = r.iterations_scored > 0 ? r.iteration_ms : 0;
      row.mfu = row.step_time_ms > 0 ? mfu_of(row.step_time_ms) : 0;
      break;
    case trial_status::failed:
    case trial_status::skipped: {
      row.error = !r.error_message.empty() ? r.error_message : r.reason;
      row.launch_failed = r.error_kind == failure_kind::launcher_error;
      std::optional<logged_failure> first;
      if (r.error_kind != failure_kind::none && r.error_kind != failure_kind::launcher_error)
        first = logged_failure{r.error_kind, r.error_message};
      const auto* maxtext = framework_named(tpu_framework_name);
      row.transient = maxtext && maxtext->transient(first, r.exit_code);
      break;
    }
  }
  row.ended_ms = std::max<std::int64_t>(r.ended_at_ms, 1);
  return row;
}

wire::tpu_trial_row tpu_diagnosed_row(const tpu_search& s, const session_ledger& ledger,
                                      wire::tpu_trial_row row, const wire::diagnosis& d,
                                      const wire::proposal_set& set, std::int64_t now_ms) {
  row.bottleneck = d.bottleneck;
  row.proposed.clear();
  for (const auto& p : set.proposals)
    if (!p.mesh.empty())
      row.proposed.push_back({p.mesh, p.title, p.exploratory});
  // What this run measured corrects the model the planner ranks by.
  auto run_exp = *s.experiment;
  run_exp.mesh = parse_mesh(row.mesh);
  if (const auto fit = fit_mesh_calibration(run_exp, d.measured_step_ms, d.time_by_class)) {
    row.calibrated = true;
    row.compute_scale = fit->compute_scale;
    row.hbm_scale = fit->hbm_scale;
    row.comm_scale = fit->comm_scale;
  }
  row.diagnosing = false;
  row.ended_ms = std::max<std::int64_t>(now_ms, 1);
  row.next = next_title(s, ledger, with_row(ledger.tpu_runs(), row));
  return row;
}

tpu_session_step next_tpu_step(const tpu_search& s, const session_ledger& ledger) {
  tpu_session_step step;
  if (ledger.ended() || !ledger.runner_job())
    return step;
  const auto& exp = *s.experiment;
  const auto& rows = ledger.tpu_runs();
  // A result the session's row does not hold yet.
  for (const auto& [n, t] : ledger.trials()) {
    if (!t.result)
      continue;
    const auto it = rows.find(n);
    if (it != rows.end() && (ended(it->second) || it->second.diagnosing))
      continue;
    if (auto bad = not_a_simulator(ledger, *t.result)) {
      step.what = tpu_session_step::action::fail;
      step.text = *bad;
      return step;
    }
    step.what = tpu_session_step::action::store_row;
    step.row = tpu_row_of_result(exp, row_before(exp, rows, n, *t.result), *t.result);
    if (!step.row.diagnosing)
      step.row.next = next_title(s, ledger, with_row(rows, step.row));
    return step;
  }
  // A run proposed before this paratune's trials were proposals (or whose
  // proposal was never stored) ended with the daemon that ran it.
  for (const auto& [n, r] : rows)
    if (!ended(r) && !r.diagnosing && !ledger.trial(n)) {
      step.what = tpu_session_step::action::store_row;
      step.row = r;
      step.row.error = "interrupted: the daemon stopped while it ran";
      step.row.transient = true;
      step.row.ended_ms = std::max<std::int64_t>(s.now_ms, 1);
      step.row.next = next_title(s, ledger, with_row(rows, step.row));
      return step;
    }
  // Each slot holds its run until it was diagnosed, so that it moves from
  // what its last run taught.
  auto loads = pool_loads(*ledger.runner_job(), ledger);
  bool running = !ledger.in_flight().empty();
  for (const auto& [n, r] : rows)
    if (r.diagnosing && !ended(r)) {
      running = true;
      for (auto& load : loads)
        load.in_flight += load.name == r.pool;
    }
  int started = ledger.next_trial() - 1;
  if (!rows.empty())
    started = std::max(started, rows.rbegin()->first);
  const auto due = retries_due(s, ledger, rows);
  if (started < s.budget && place_trial(loads)) {
    if (!due.empty()) {
      // A retry runs off the pool it failed on while another is up, and
      // waits for that pool's free slot, keeping its share of the budget.
      if (const auto where = place_trial(loads, due.front()->pool)) {
        step.what = tpu_session_step::action::propose;
        step.trial = started + 1;
        step.mesh = {parse_mesh(due.front()->mesh), "run again", false, 0};
        step.retry_of = due.front()->trial;
        step.pool = loads[*where].name;
        return step;
      }
    } else if (const auto next = next_mesh(s, rows)) {
      step.what = tpu_session_step::action::propose;
      step.trial = started + 1;
      step.mesh = *next;
      step.pool = loads[*place_trial(loads)].name;
      return step;
    }
  }
  if (running)
    return step;
  if (all_paused(loads) && started < s.budget) {
    step.what = tpu_session_step::action::fail;
    step.text = "no pool is left to run trials on: " + paused_pools_text(loads, ledger);
    return step;
  }
  step.what = tpu_session_step::action::finish;
  step.end = started >= s.budget || !due.empty() ? session_state::finished
                                                  : session_state::exhausted;
  return step;
}

} // namespace paratune
