// paratune-sim: a simulated GPU cluster that runs "Megatron-LM". It accepts
// the arguments paratune renders, prints what Megatron-LM prints (argument
// dump, iteration lines, memory lines, and the real error texts), and takes
// its time and memory from the performance model run with hidden
// per-cluster factors the predictor never sees.

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <random>
#include <thread>

#include <nlohmann/json.hpp>

#include "adapters/config/catalog.hpp"
#include "core/input_error.hpp"
#include "core/megatron_args.hpp"
#include "core/megatron_rules.hpp"
#include "core/perf/simulated_cluster.hpp"
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
  auto violations = check_megatron_rules(l.model, l.config, plan.opts.world_size);
  if (!violations.empty()) {
    out = {{"valid", false}, {"failure", "config_invalid"}, {"message", violations[0].message}};
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

/// Injected infrastructure failures: none, an NCCL timeout or a node loss,
/// at an iteration after warm-up. Deterministic in the seed.
struct injected_failure {
  int kind = 0;          ///< 0 none, 1 NCCL timeout, 2 node failure
  int64_t iteration = 0;
  int rank = 0;
};

injected_failure draw_failure(const sim::sim_options& o, int train_iters, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0, 1);
  injected_failure f;
  const double x = u(rng);
  if (x < o.failure_rate * 2 / 3)
    f.kind = 1;
  else if (x < o.failure_rate)
    f.kind = 2;
  f.iteration = 3 + int64_t(u(rng) * std::max(1, train_iters - 3));
  f.rank = int(u(rng) * o.world_size);
  return f;
}

int run(const run_plan& plan) {
  const auto& l = plan.launch;
  const auto& o = plan.opts;
  sim::megatron_output out(l, o.world_size, o.megatron_version);
  auto violations = check_megatron_rules(l.model, l.config, o.world_size);
  if (!violations.empty()) {
    out.invalid_configuration(violations.front());
    return 1;
  }
  const auto sim = simulate(l.model, plan.cluster, o.world_size, l.config, l.prec);
  const auto& truth = sim.truth;
  out.startup(l.model.parameters() / (l.config.tp * l.config.pp));
  std::mt19937_64 rng(mix64(o.seed));
  std::normal_distribution<double> noise(0.0, 0.01);
  const auto failure = draw_failure(o, l.train_iters, rng);
  const double capacity_gib = plan.cluster.device.hbm_gib - 0.85; // what CUDA reports
  const double base_ms = truth.iteration_time_s * 1000;
  const double gpu_util = 100 * std::clamp(1.0 - (truth.time.bubble_s + truth.time.other_s)
                                                   / truth.iteration_time_s, 0.05, 1.0);
  double loss = 10.9;
  for (int64_t it = 1; it <= l.train_iters; ++it) {
    // The first iteration builds the CUDA graphs, NCCL rings and allocator
    // pools; the second still warms caches.
    const double warm = it == 1 ? 6.0 : it == 2 ? 1.25 : 1.0;
    const double ms = base_ms * warm * (1.0 + noise(rng));
    pause_for(ms, o.time_scale);
    if (it == 1 && sim.out_of_memory) {
      const auto& s = truth.stages[sim.oom_stage];
      const int rank = sim.oom_stage * l.config.tp * l.config.cp
                       * l.config.data_parallel(o.world_size);
      out.out_of_memory(rank, rank % plan.cluster.devices_per_node, capacity_gib,
                        std::min(capacity_gib - 0.3, s.total_mib / 1024 * 0.93),
                        s.activations_mib / 1024 / std::max(1, l.config.pp) * 0.5 + 0.25);
      return 1;
    }
    if (failure.kind != 0 && it == failure.iteration) {
      if (failure.kind == 1)
        out.nccl_timeout(failure.rank, 100 * it + 17);
      else
        out.node_failure(failure.rank);
      return 1;
    }
    const bool skipped = l.prec == precision::fp16 && it <= 2;
    loss = skipped ? loss : loss * 0.93 + 0.5 * noise(rng);
    out.iteration(it, ms, truth.tflops_per_gpu * base_ms / ms, loss, skipped);
    std::printf("[paratune-sim monitor] utilization.gpu [%%]: %.1f, memory.used [MiB]: %.0f\n",
                std::clamp(gpu_util * (1 + noise(rng)), 0.0, 100.0), truth.peak_memory_mib);
    if (it == 1)
      for (const auto& s : truth.stages) {
        const int rank = s.stage * l.config.tp * l.config.cp * l.config.data_parallel(o.world_size);
        const double steady = s.weights_mib + s.gradients_mib + s.optimizer_mib;
        const double max_reserved = s.total_mib - 600; // CUDA context is not reserved memory
        out.memory(rank, it, steady + 0.1 * s.activations_mib, max_reserved * 0.96, max_reserved * 0.99,
                   max_reserved);
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
    std::vector<std::string> unknown;
    plan.launch = parse_megatron_args(plan.opts.megatron_args, &unknown);
    if (!unknown.empty())
      throw input_error("unrecognized arguments: " + join_args(unknown));
    if (plan.launch.model.layers <= 0 || plan.launch.model.hidden <= 0
        || plan.launch.model.heads <= 0 || plan.launch.model.vocab <= 0)
      throw input_error("the model is incomplete: --num-layers, --hidden-size, "
                        "--num-attention-heads and --vocab-size are required");
    plan.cluster = load_cluster(plan.opts.cluster);
    return plan.opts.evaluate ? evaluate(plan) : run(plan);
  } catch (const input_error& e) {
    // argparse's form: usage line, then "error:", exit status 2.
    std::fprintf(stderr, "usage: pretrain_gpt.py [-h] ...\npretrain_gpt.py: error: %s\n", e.what());
    return 2;
  }
}
