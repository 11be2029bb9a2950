// `paratune-tpu-sim train`: a stand-in for MaxText's train.py on a simulated
// slice. It reads the run from MaxText's own overrides, refuses what
// MaxText refuses with MaxText's words, prints MaxText's per-step lines and
// writes the profile where MaxText's profiler does, so that paratune reads
// it exactly as it reads a real run.
#include "tools/paratune-tpu-sim/maxtext_trainer.hpp"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <thread>

#include "adapters/diagnosis/experiment_loader.hpp"
#include "core/input_error.hpp"
#include "core/tpu/maxtext_args.hpp"
#include "core/tpu/maxtext_rules.hpp"
#include "sim/tpu/simulated_run.hpp"
#include "sim/tpu/xplane_writer.hpp"

namespace paratune::tpusim {

namespace {

constexpr int exit_python_error = 1; ///< an uncaught Python exception
constexpr const char* trainer_host = "paratune-tpu-sim";

// absl's prefix, as MaxText's logging prints it: "I1127 12:00:00.123456 140371 file.py:223] ".
std::string absl_prefix(const char* source) {
  const auto now = std::chrono::system_clock::now();
  const auto t = std::chrono::system_clock::to_time_t(now);
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count()
      % 1000000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[96];
  std::snprintf(buf, sizeof buf, "I%02d%02d %02d:%02d:%02d.%06lld %d %s] ", tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<long long>(micros),
                int(getpid()), source);
  return buf;
}

// What train.py prints when an exception stops it: the traceback's frame
// and the exception's line, on stderr.
int python_exception(const std::string& file, int line, const std::string& printed) {
  std::cerr << "Traceback (most recent call last):\n  File \"src/maxtext/" << file << '"';
  if (line > 0)
    std::cerr << ", line " << line;
  std::cerr << '\n' << printed << std::endl;
  return exit_python_error;
}

// The run's own keys (not the launch's), as MaxText's config holds them.
struct run_keys {
  int steps = 10;
  std::string run_name;
  std::string base_output_directory;
  bool xplane = false;
};

run_keys read_run_keys(const std::vector<std::string>& overrides) {
  std::map<std::string, std::string> m;
  for (const auto& o : overrides)
    if (const auto eq = o.find('='); eq != std::string::npos)
      m[o.substr(0, eq)] = o.substr(eq + 1);
  run_keys k;
  if (m.count("steps")) {
    try {
      std::size_t used = 0;
      k.steps = std::stoi(m["steps"], &used);
      if (used != m["steps"].size() || k.steps < 1)
        throw std::invalid_argument("steps");
    } catch (const std::exception&) {
      throw input_error("MaxText override steps=" + m["steps"] + " is not a positive whole number");
    }
  }
  k.run_name = m.count("run_name") ? m["run_name"] : "paratune";
  k.base_output_directory = m["base_output_directory"];
  if (m.count("profiler") && !m["profiler"].empty()) {
    if (m["profiler"] != "xplane")
      throw input_error("MaxText override profiler=" + m["profiler"]
                        + ": the simulator writes only profiler=xplane");
    k.xplane = true;
    if (k.base_output_directory.empty())
      throw input_error("profiler=xplane needs base_output_directory: the profile goes under it");
  }
  return k;
}

void sleep_for(double simulated_s, double time_scale) {
  if (time_scale > 0)
    std::this_thread::sleep_for(std::chrono::duration<double>(simulated_s * time_scale));
}

// Step n's line of MaxText's metric logger (metric_logger.py, 2026 form).
void print_step(int step, double seconds, double tflops, double tokens, double weights,
                double loss) {
  char buf[400];
  std::snprintf(buf, sizeof buf,
                "completed step: %d, seconds: %.3f, TFLOP/s/device: %.3f, Tokens/s/device: "
                "%.3f, total_weights: %.0f, loss: %.3f, lm_loss: %.3f, perplexity: %.3f",
                step, seconds, tflops, tokens, weights, loss, loss, std::exp(loss));
  std::cout << absl_prefix("metric_logger.py:223") << buf << std::endl;
}

// The step at which this run loses a host, if it does: drawn from the seed,
// the mesh and the run's name.
std::optional<int> failing_step(double failure_rate, std::uint64_t seed, const tpu_mesh& mesh,
                                const run_keys& keys) {
  if (failure_rate <= 0 || keys.steps < 2)
    return std::nullopt;
  std::mt19937_64 rng(seed ^ std::hash<std::string>{}(to_string(mesh) + "|" + keys.run_name));
  if (std::uniform_real_distribution<double>(0, 1)(rng) >= failure_rate)
    return std::nullopt;
  return std::uniform_int_distribution<int>(1, keys.steps - 1)(rng);
}

// What a run that lost a host prints: the coordination service's barrier
// timeout, as JAX raises it.
int lost_host(const run_keys& keys) {
  std::cerr << "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Id: "
            << keys.run_name << "_step_barrier::0. This usually happens because a task triggered "
               "the barrier too early or too slowly. Please look at the task logs (both timed "
               "out and first task) to debug further.\n# of tasks that reached the barrier: "
               "3/4.\nThe first task at the barrier: /job:jax_worker/replica:0/task:0. Some "
               "timed out task names:\n/job:jax_worker/replica:0/task:3"
            << std::endl;
  return exit_python_error;
}

// The simulated steps: step 0 includes XLA's compilation, every step a
// little noise around the run's step time. Returns how many ran.
int train(const experiment_spec& exp, const tpu_run& run, const run_keys& keys,
          std::uint64_t seed, double time_scale, std::optional<int> fail_at) {
  const double step_s = run.profile.step_time_ms / 1000;
  const double compile_s = 15 + 5 * step_s;
  const int chips = exp.slice.chips();
  const double weights = double(exp.workload.global_batch) * exp.workload.seq_len;
  std::mt19937_64 rng(seed ^ std::hash<std::string>{}(to_string(exp.mesh)));
  std::normal_distribution<double> jitter(1.0, run.profile.step_stddev_ms / run.profile.step_time_ms);
  for (int step = 0; step < keys.steps; ++step) {
    if (fail_at && step == *fail_at)
      return step;
    const double seconds = (step == 0 ? compile_s : 0) + step_s * std::max(0.9, jitter(rng));
    sleep_for(seconds, time_scale);
    print_step(step, seconds, run.truth.tflops_per_chip * step_s / seconds,
               weights / seconds / chips, weights, 10.9 * std::pow(0.985, step));
  }
  return keys.steps;
}

} // namespace

int run_trainer(const trainer_options& o) {
  auto exp = load_experiment(o.config); // bad input: exit 2
  const run_keys keys = read_run_keys(o.overrides);
  // MaxText's start-up checks come first, on what was written.
  const maxtext_target target{exp.slice.chips_per_slice(), exp.slice.num_slices, 0};
  for (const auto& f : refusals(check_maxtext_overrides(o.overrides, target)))
    return python_exception(std::string(f.row().file), f.row().line, f.printed());
  maxtext_launch launch{exp.model, exp.mesh, exp.dcn_mesh, exp.workload, exp.slice.chips()};
  try {
    launch = read_maxtext_args(o.overrides, launch);
  } catch (const input_error& e) {
    return python_exception("configs/pyconfig.py", 0, std::string("ValueError: ") + e.what());
  }
  exp.mesh = launch.ici;
  exp.dcn_mesh = launch.dcn;
  exp.workload = launch.workload;
  char params[64];
  std::snprintf(params, sizeof params, "number parameters: %.3f billion",
                exp.model.parameters() / 1e9);
  std::cout << absl_prefix("max_utils.py:770") << params << std::endl;
  const auto run = simulate_tpu_run(exp, exp.mesh, o.seed, keys.steps);
  if (!run.error.empty()) {
    sleep_for(15, o.time_scale); // XLA compiles before it finds out
    std::cerr << "jaxlib.xla_extension.XlaRuntimeError: " << run.error << std::endl;
    return exit_python_error;
  }
  const auto fail_at = failing_step(o.failure_rate, o.seed, exp.mesh, keys);
  if (train(exp, run, keys, o.seed, o.time_scale, fail_at) < keys.steps)
    return lost_host(keys);
  if (keys.xplane)
    write_maxtext_xplane(run.profile, keys.base_output_directory, keys.run_name,
                         capture_name_now(), trainer_host);
  return 0;
}

} // namespace paratune::tpusim
