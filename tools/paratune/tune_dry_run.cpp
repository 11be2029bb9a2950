#include "tools/paratune/tune_dry_run.hpp"

#include <iostream>

#include <fmt/format.h>

#include "core/human_units.hpp"
#include "core/model_flops_utilization.hpp"
#include "core/perf/memory_verdict.hpp"
#include "core/training_config.hpp"
#include "core/tuning/memory_screen.hpp"
#include "core/tuning/tuning_forecast.hpp"
#include "tools/paratune/json_output.hpp"
#include "tools/paratune/plan_view.hpp"
#include "tools/paratune/prediction_view.hpp"

namespace paratune::cli {

namespace {

constexpr std::size_t dry_run_top = 5;

std::string space_keys(const config_space& space) {
  std::string keys;
  for (const auto& [k, v] : space)
    keys += (keys.empty() ? "" : ", ") + k + "(" + std::to_string(v.size()) + ")";
  return keys;
}

nlohmann::json dry_run_json(const job_spec& job, const tuning_forecast& f) {
  nlohmann::json top = nlohmann::json::array();
  int rank = 0;
  for (const auto& t : f.screened.top) {
    auto j = prediction_json(t.prediction);
    j.erase("memory");
    j["rank"] = ++rank;
    j["config"] = config_json(t.config);
    j["config_key"] = canonical_key(t.config);
    j["layout"] = plan_layout(t.config, job.world_size());
    j["variants"] = t.variants;
    top.push_back(std::move(j));
  }
  return {{"dry_run", true},
          {"job", job.name},
          {"model", job.model.name},
          {"cluster", job.cluster.name},
          {"gpus", job.world_size()},
          {"space", job.search},
          {"before_screening", f.space_size},
          {"after_screening",
           {{"fitting", f.screened.fitting},
            {"layouts", f.screened.layouts},
            {"rejected_by_rules", f.screened.rule_rejected},
            {"rejected_by_memory", f.screened.memory_rejected}}},
          {"top", top},
          {"initial", f.initial ? prediction_json(*f.initial) : nlohmann::json(nullptr)},
          {"trials", f.trials},
          {"budget", job.trials},
          {"predicted_gpu_hours", f.gpu_hours}};
}

} // namespace

int print_tune_dry_run(const session_plan& plan, const std::string& job_file, bool json) {
  const auto& job = plan.job;
  const auto f = forecast_tuning(job, dry_run_top);
  if (json) {
    print_json(dry_run_json(job, f));
    return 0;
  }
  auto& out = std::cout;
  out << fmt::format("dry run of {}: nothing is launched or stored\n", job_file)
      << fmt::format("job {}: {} on {} x {} ({}), {}, seq {}, gbs {}; the initial configuration "
                     "passes Megatron-LM's rules and the search space\n",
                     job.name, job.model.name, job.world_size(), job.cluster.device.name,
                     job.cluster.name, to_string(job.prec), job.initial.seq, job.initial.gbs)
      << fmt::format("search space before screening: {} over {}\n",
                     count_of(static_cast<long long>(f.space_size), "candidate"),
                     space_keys(job.search))
      << fmt::format("after screening: {} in {} (rejected: {} by Megatron-LM's rules, {} by "
                     "memory)\n\n",
                     count_of(static_cast<long long>(f.screened.fitting), "configuration"),
                     count_of(static_cast<long long>(f.screened.layouts), "layout"),
                     f.screened.rule_rejected, f.screened.memory_rejected);
  if (f.screened.top.empty()) {
    out << "no configuration of the search space starts and fits\n";
  } else {
    out << "the plan's top " << f.screened.top.size() << ":\n";
    plan_request r{job.model, job.cluster, job.world_size(), job.prec, job.initial, job.search,
                   dry_run_top, {}};
    write_plan_table(out, r, f.screened);
  }
  out << '\n';
  if (f.initial) {
    const auto screened_out = screen_before_any_run(job.initial, *f.initial);
    out << fmt::format("trial 1 runs the initial configuration: predicted {:.1f} TFLOP/s/GPU, "
                       "{:.1f} s per iteration, peak {:.0f} MiB ({})\n",
                       f.initial->tflops_per_gpu, f.initial->iteration_time_s,
                       f.initial->peak_memory_mib,
                       screened_out ? "tune's " + *screened_out + ": skipped, no budget spent"
                                    : std::string(memory_verdict_words(f.initial->memory)));
  }
  out << fmt::format("predicted to the stop: at most {} of the budget of {}, {} iterations each "
                     "on {} devices: {:.1f} GPU-hours{}\n",
                     count_of(f.trials, "trial"), job.trials, job.train_iters, job.world_size(),
                     f.gpu_hours,
                     job.stop.mode == session_stop_mode::converged || job.early_stop
                       ? " (the job's stop rule or early stopping may end it sooner)"
                       : "");
  return 0;
}

} // namespace paratune::cli
