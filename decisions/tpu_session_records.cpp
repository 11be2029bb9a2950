#include "decisions/tpu_session_records.hpp"

#include "core/human_units.hpp"
#include "decisions/tpu_session_step.hpp"
#include "ledger/tpu_runs.hpp"

namespace paratune {

wire::tpu_session_end tpu_end_record(const session_ledger& ledger, session_state state,
                                     const std::string& text, const tpu_mesh& job_mesh,
                                     std::int64_t now_ms) {
  wire::tpu_session_end end;
  end.state = state;
  end.text = text;
  end.job_mesh = to_string(job_mesh);
  for (auto [number, row] : ledger.tpu_runs()) {
    if (row.ended_ms == 0) {
      row.stopped = text.empty() ? "the session ended" : text;
      row.diagnosing = false;
      row.ended_ms = now_ms;
    }
    end.trials.push_back(std::move(row));
  }
  end.best_trial = tpu_fastest_run(end.trials);
  return end;
}

wire::optimization_record tpu_improvement(const experiment_spec& exp, const std::string& id,
                                          const wire::tpu_trial_row& from,
                                          const wire::tpu_trial_row& to) {
  const auto before = parse_mesh(from.mesh), after = parse_mesh(to.mesh);
  wire::optimization_record r;
  r.id = id + "-t" + std::to_string(to.trial);
  r.title = "Tuning session " + id + ": " + describe_mesh_change(before, after);
  r.platform = "tpu";
  r.model = exp.model.name;
  r.params_billion = exp.model.parameters() / 1e9;
  r.hardware = exp.cluster.name;
  r.devices = exp.slice.chips();
  r.bottleneck = to.bottleneck;
  r.before = to_string(before);
  r.after = to_string(after);
  r.speedup = from.step_time_ms / to.step_time_ms;
  r.impact = "step " + human_duration(from.step_time_ms) + " -> "
             + human_duration(to.step_time_ms) + " (simulated)";
  r.source = "paratune tune, session " + id;
  return r;
}

std::optional<wire::optimization_record>
tpu_improvement_by(const experiment_spec& exp, const std::string& id,
                   const std::map<int, wire::tpu_trial_row>& rows, const wire::tpu_trial_row& row) {
  const int before = tpu_best_ended(rows);
  auto after_rows = rows;
  after_rows[row.trial] = row;
  const int after = tpu_best_ended(after_rows);
  if (after != row.trial || before <= 0 || before == after)
    return std::nullopt;
  return tpu_improvement(exp, id, rows.at(before), row);
}

} // namespace paratune
