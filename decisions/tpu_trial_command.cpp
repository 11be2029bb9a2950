#include "decisions/tpu_trial_command.hpp"

#include "core/input_error.hpp"
#include "core/launch/launch_template.hpp"
#include "core/tpu/maxtext_args.hpp"
#include "frameworks/framework.hpp"

namespace paratune {

std::string tpu_output_base(const tpu_trial_launch& l) {
  return l.pool && !l.pool->workdir.empty() ? l.pool->workdir + "/" + l.session : l.runs_dir;
}

std::string tpu_trial_dir(const tpu_trial_launch& l) {
  return tpu_output_base(l) + "/t" + std::to_string(l.trial);
}

std::vector<std::string> tpu_trial_argv(const tpu_trial_launch& l) {
  const auto& exp = *l.experiment;
  const maxtext_launch launch{exp.model, l.mesh, exp.dcn_mesh, exp.workload, exp.slice.chips()};
  auto checked = checked_maxtext_args(launch);
  std::vector<std::string> args{"run_name=t" + std::to_string(l.trial),
                                "base_output_directory=" + tpu_output_base(l),
                                "steps=" + std::to_string(l.steps), "profiler=xplane"};
  args.insert(args.end(), checked.begin(), checked.end());
  if (!l.pool || l.pool->kind == pool_kind::simulated) {
    std::vector<std::string> argv{l.simulator,      "train",
                                  "--seed",         std::to_string(l.seed),
                                  "--time-scale",   std::to_string(l.time_scale),
                                  "--failure-rate", std::to_string(l.failure_rate),
                                  l.experiment_file};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }
  const auto* maxtext = framework_named("maxtext");
  if (!maxtext)
    throw std::logic_error("the MaxText framework is not registered");
  launch_values v;
  v.framework_args = std::move(args);
  v.framework = maxtext->args_field();
  v.framework_title = std::string(maxtext->title());
  v.trial = l.trial;
  v.session = l.session;
  v.workdir = tpu_trial_dir(l);
  return launch_template::parse(l.pool->launch).render(v);
}

tpu_trial_records tpu_trial_records_for(const tpu_trial_launch& l, const std::string& title,
                                        int retry_of, std::int64_t now_ms) {
  tpu_trial_records out;
  auto& row = out.row;
  row.trial = l.trial;
  row.mesh = to_string(l.mesh);
  row.pool = l.pool ? l.pool->name : std::string();
  row.retry_of = retry_of;
  row.started_ms = now_ms;
  row.job_mesh = l.mesh == l.experiment->mesh;
  wire::proposal p;
  p.trial = l.trial;
  p.config = {{"mesh", row.mesh}};
  p.change = title;
  p.pool = row.pool;
  p.retry_of = retry_of;
  p.workdir = tpu_trial_dir(l);
  try {
    p.argv = tpu_trial_argv(l);
  } catch (const input_error& e) {
    row.error = e.what(); // what MaxText would say
    row.ended_ms = now_ms;
    return out;
  }
  out.proposal = std::move(p);
  return out;
}

} // namespace paratune
