// paratune-sim: a simulated GPU cluster that runs "Megatron-LM". It accepts
// the arguments paratune renders, prints what Megatron-LM prints (argument
// dump, iteration lines, memory lines, and the real error texts), and takes
// its time and memory from the performance model run with hidden
// per-cluster factors the predictor never sees.

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string_view>
#include <thread>

#include <nlohmann/json.hpp>

#include "adapters/config/catalog.hpp"
#include "core/input_error.hpp"
#include "core/megatron_args.hpp"
#include "core/megatron_rules.hpp"
#include "core/text.hpp"
#include "paratune_version.hpp"
#include "sim/gpu/simulated_cluster.hpp"
#include "tools/paratune-sim/megatron_flags_text.hpp"
#include "tools/paratune-sim/megatron_output.hpp"
#include "tools/paratune-sim/sim_options.hpp"

using namespace paratune;

namespace {

struct run_plan {
  megatron_launch launch;
  cluster_spec cluster;
  sim::sim_options opts;
};

int evaluate(const run_plan& plan) {
  const auto& l = plan.launch;
  nlohmann::json out;
  const auto violation = sim::first_violation(sim::version_traits(plan.opts.megatron_version),
                                              l, plan.opts.world_size);
  if (!violation.rule.empty()) {
    out = {{"valid", false}, {"failure", "config_invalid"}, {"message", violation.message}};
  } else {
    auto s = simulate(l.model, plan.cluster, plan.opts.world_size, l.config, l.prec);
    out = {{"valid", true},
           {"iteration_time_s", s.truth.iteration_time_s},
           {"tflops_per_gpu", s.truth.tflops_per_gpu},
           {"mfu", s.truth.mfu},
           {"tokens_per_s_per_gpu", s.truth.tokens_per_s_per_gpu},
           {"peak_memory_mib", s.truth.peak_memory_mib},
           {"fits", !s.out_of_memory},
           {"failure", s.out_of_memory ? nlohmann::json("oom") : nlohmann::json(nullptr)}};
  }
  if (plan.opts.json)
    std::cout << out.dump(2) << '\n';
  else
    for (auto& [k, v] : out.items())
      std::cout << k << ": " << v << '\n';
  return 0;
}

void pause_for(double simulated_ms, double scale) {
  const double wall_ms = std::min(500.0, simulated_ms * scale);
  std::this_thread::sleep_for(std::chrono::microseconds(int64_t(wall_ms * 1000)));
}

/// A collective that never returns: silent until killed (NCCL's own
/// watchdog would give up after its timeout, 10 minutes by default).
[[noreturn]] void hang() {
  std::fflush(stdout);
  for (;;)
    std::this_thread::sleep_for(std::chrono::seconds(60));
}

void report_oom(sim::megatron_output& out, const run_plan& plan, const simulated_outcome& sim) {
  const auto& c = plan.launch.config;
  const auto& s = sim.truth.stages[sim.oom_stage];
  const double capacity_gib = plan.cluster.device.hbm_gib - 0.85; // what CUDA reports
  const int rank = sim.oom_stage * c.tp * c.cp * c.data_parallel(plan.opts.world_size);
  out.out_of_memory(rank, rank % plan.cluster.devices_per_node, capacity_gib,
                    std::min(capacity_gib - 0.3, s.total_mib / 1024 * 0.93),
                    s.activations_mib / 1024 / std::max(1, c.pp) * 0.5 + 0.25);
}

void report_injected(sim::megatron_output& out, const injected_failure& f) {
  if (f.kind == injected_failure_kind::nccl_timeout)
    out.nccl_timeout(f.rank, 100 * f.iteration + 17);
  else
    out.node_failure(f.rank);
}

/// Sums iterations until the log interval is complete, as training_log()
/// averages them.
struct interval_sum {
  sim::iteration_values v{0, 0, 0, 0, 0};
  int losses = 0;

  void add(const simulated_iteration& step, double loss, bool skipped) {
    v.elapsed_ms += step.elapsed_ms;
    v.tflops += step.tflops_per_gpu;
    ++v.iterations;
    if (skipped) {
      ++v.skipped;
    } else {
      v.loss += loss;
      ++losses;
    }
  }
  sim::iteration_values average() const {
    sim::iteration_values a = v;
    a.elapsed_ms /= std::max(1, v.iterations);
    a.tflops /= std::max(1, v.iterations);
    a.loss /= std::max(1, losses);
    return a;
  }
};

int run(const run_plan& plan) {
  const auto& l = plan.launch;
  const auto& o = plan.opts;
  const auto version = sim::version_traits(o.megatron_version);
  sim::megatron_output out(l, o.world_size, version, o.log_throughput);
  const auto violation = sim::first_violation(version, l, o.world_size);
  if (!violation.rule.empty()) {
    out.invalid_configuration(violation);
    return 1;
  }
  const auto sim = simulate(l.model, plan.cluster, o.world_size, l.config, l.prec);
  const auto& truth = sim.truth;
  out.startup(l.model.parameters() / (l.config.tp * l.config.pp));
  simulated_run run(sim, o.seed, o.failure_rate, l.train_iters, o.world_size);
  double loss = 10.9;
  bool theory_due = true, memory_due = true;
  interval_sum interval;
  const int log_interval = std::max(1, l.log_interval);
  for (int64_t it = 1; it <= l.train_iters; ++it) {
    const auto step = run.next();
    if (it == o.hang_at)
      hang();
    pause_for(step.elapsed_ms, o.time_scale);
    if (it == 1 && sim.out_of_memory) {
      report_oom(out, plan, sim);
      return 1;
    }
    if (run.failure().kind != injected_failure_kind::none && it == run.failure().iteration) {
      report_injected(out, run.failure());
      return 1;
    }
    // fp16 dynamic loss scaling skips the first steps while the scale backs off.
    const bool skipped = l.prec == precision::fp16 && it <= 2;
    loss = skipped ? loss : loss * 0.93 + 0.5 * step.noise;
    interval.add(step, loss, skipped);
    std::printf("[paratune-sim monitor] utilization.gpu [%%]: %.1f, memory.used [MiB]: %.0f\n",
                step.gpu_util_pct, truth.peak_memory_mib);
    if (it % log_interval != 0)
      continue;
    const auto logged = interval.average();
    interval = {};
    out.iteration(it, logged);
    if (theory_due) {
      out.theoretical_memory(l.config.micro_batches(o.world_size));
      theory_due = false;
    }
    // The memory report waits until an optimizer step has built its state.
    if (memory_due && logged.skipped < logged.iterations) {
      for (const auto& s : truth.stages)
        out.memory(s, it);
      memory_due = false;
    }
  }
  out.training_done(l.train_iters);
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  try {
    run_plan plan;
    plan.opts = sim::parse_sim_options(argc, argv);
    if (plan.opts.help) {
      std::fputs(sim::sim_usage(), stdout);
      return 0;
    }
    if (plan.opts.version) {
      std::printf("paratune-sim %s\n", paratune::version);
      return 0;
    }
    std::vector<std::string> unknown;
    static const auto options = megatron_option_list::parse(sim::megatron_flags_text());
    plan.launch = parse_megatron_args(plan.opts.megatron_args, &unknown, &options);
    if (!unknown.empty())
      throw input_error("unrecognized arguments: " + join(unknown, " "));
    // paratune's model checks (ranges, relations between dimensions) refuse
    // with exit 2 what Megatron-LM would trip over while building the model;
    // a hidden size its heads do not divide Megatron-LM refuses itself, at
    // start-up, with a bare assert, and that is what shows.
    // validate_args reads the process's environment and the GPU's
    // generation as well as the command line.
    plan.cluster = load_cluster(plan.opts.cluster);
    plan.launch.flags.device_arch = int(plan.cluster.device.compute_capability);
    const char* queues = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
    plan.launch.flags.one_kernel_queue = queues && std::string_view(queues) == "1";
    const auto refused = check_megatron_launch(plan.launch, plan.opts.world_size);
    if (refused.empty() || !refused.front().source
        || refused.front().source->rule != megatron_rule::hidden_heads)
      check_megatron_model(plan.launch);
    // validate_args turns sequence parallelism off without tensor
    // parallelism (with a warning) and runs on.
    if (plan.launch.config.sp && plan.launch.config.tp == 1)
      plan.launch.config.sp = false;
    return plan.opts.evaluate ? evaluate(plan) : run(plan);
  } catch (const input_error& e) {
    // argparse's form: usage line, then "error:", exit status 2.
    std::fprintf(stderr, "usage: pretrain_gpt.py [-h] ...\npretrain_gpt.py: error: %s\n", e.what());
    return 2;
  }
}
