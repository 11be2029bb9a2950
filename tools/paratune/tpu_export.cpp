#include "tools/paratune/tpu_export.hpp"

#include <iostream>

#include <yaml-cpp/yaml.h>

#include "adapters/diagnosis/experiment_loader.hpp"
#include "core/tpu/maxtext_args.hpp"
#include "messages/codec.hpp"
#include "messages/ec.hpp"

namespace paratune::cli {

namespace {

// The trial numbers of `id` among the pool's session names ("<id>.t<n>").
std::vector<int> tpu_trials(const std::vector<std::string>& sessions, const std::string& id) {
  const auto prefix = id + ".t";
  std::vector<int> out;
  for (const auto& s : sessions) {
    if (s.size() <= prefix.size() || s.compare(0, prefix.size(), prefix) != 0)
      continue;
    const auto digits = s.substr(prefix.size());
    if (digits.size() <= 6 && digits.find_first_not_of("0123456789") == std::string::npos)
      out.push_back(std::stoi(digits));
  }
  return out;
}

std::optional<std::vector<int>> trials_of(const message_pool& pool, const std::string& id) {
  const auto sessions = pool.sessions();
  if (!sessions) {
    std::cerr << "error: cannot list the pool's sessions: " << describe(sessions.error()) << "\n";
    return std::nullopt;
  }
  return tpu_trials(*sessions, id);
}

// A trial's run when it was diagnosed with a measured step time.
std::optional<tpu_best_run> run_of(int trial, const std::vector<wire::envelope>& history) {
  tpu_best_run run;
  run.trial = trial;
  for (const auto& e : history) {
    if (e.type == wire::type_name<wire::diagnose_request>()) {
      run.experiment_yaml = wire::body_of<wire::diagnose_request>(e).experiment_yaml;
    } else if (e.type == wire::type_name<wire::diagnosis>()) {
      const auto d = wire::body_of<wire::diagnosis>(e);
      if (d.error.empty())
        run.step_ms = d.measured_step_ms;
    }
  }
  if (run.experiment_yaml.empty() || run.step_ms <= 0)
    return std::nullopt;
  return run;
}

} // namespace

bool has_tpu_trials(const message_pool& pool, const std::string& id) {
  const auto trials = trials_of(pool, id);
  return trials && !trials->empty();
}

std::optional<tpu_best_run> best_tpu_run(const message_pool& pool, const std::string& id) {
  const auto trials = trials_of(pool, id);
  if (!trials)
    return std::nullopt;
  std::optional<tpu_best_run> best;
  for (int t : *trials) {
    const auto session = id + ".t" + std::to_string(t);
    const auto history = pool.session_history(session);
    if (!history) {
      std::cerr << "error: cannot read session " << session << ": " << describe(history.error())
                << "\n";
      return std::nullopt;
    }
    const auto run = run_of(t, *history);
    // The faster run wins; on a tie, the earlier trial.
    if (run && (!best || run->step_ms < best->step_ms
                || (run->step_ms == best->step_ms && run->trial < best->trial)))
      best = run;
  }
  if (!best)
    std::cerr << "error: session " << id << " has no measured TPU run to export\n";
  return best;
}

std::optional<tpu_best_run> best_tpu_run_in(const std::vector<wire::envelope>& history) {
  std::optional<wire::tpu_session_opened> opened;
  std::optional<wire::tpu_session_end> end;
  for (const auto& e : history) {
    if (e.type == wire::type_name<wire::tpu_session_opened>())
      opened = wire::body_of<wire::tpu_session_opened>(e);
    else if (e.type == wire::type_name<wire::tpu_session_end>())
      end = wire::body_of<wire::tpu_session_end>(e);
  }
  if (!opened || !end || end->best_trial <= 0)
    return std::nullopt;
  for (const auto& row : end->trials) {
    if (row.trial != end->best_trial)
      continue;
    YAML::Node exp = YAML::Load(opened->experiment_yaml);
    exp["mesh"] = row.mesh;
    return tpu_best_run{row.trial, row.step_time_ms, YAML::Dump(exp)};
  }
  return std::nullopt;
}

std::vector<std::string> maxtext_overrides(const tpu_best_run& run) {
  const auto exp = parse_experiment(run.experiment_yaml,
                                    "trial " + std::to_string(run.trial) + "'s experiment");
  maxtext_launch l;
  l.model = exp.model;
  l.ici = exp.mesh;
  l.dcn = exp.dcn_mesh;
  l.workload = exp.workload;
  l.chips = exp.slice.chips();
  return checked_maxtext_args(l);
}

} // namespace paratune::cli
