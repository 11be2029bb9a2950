// paratune-tpu-sim: a simulated TPU cluster (v5e, v5p, v6e slices) for
// JAX-style mesh configurations. It "runs" an experiment under a mesh with
// a hidden ground truth and writes what Xprof would: overview_page,
// op_profile and roofline_model tool outputs in --out, and, given MaxText's
// --base-output-directory and --run-name, the raw XSpace where MaxText's
// profiler writes it (<base>/<run>/tensorboard/plugins/profile/<time>/).
// It also builds profile fixtures from a YAML description
// (tests/fixtures/asap/*/paper.yaml).
//
//   paratune-tpu-sim run --experiment EXP.yaml [--mesh data=8,model=2] [--seed N]
//                        [--out DIR] [--base-output-directory DIR --run-name NAME]
//   paratune-tpu-sim fixture --spec paper.yaml --out DIR
//   paratune-tpu-sim train [--seed N] [--time-scale X] [--failure-rate P] EXP.yaml key=value ...
//     (MaxText's train.py on the simulated slice: tools/paratune-tpu-sim/maxtext_trainer.hpp)

#include <iostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "adapters/diagnosis/experiment_loader.hpp"
#include "sim/tpu/xplane_writer.hpp"
#include "sim/tpu/xprof_writer.hpp"
#include "core/input_error.hpp"
#include "paratune_version.hpp"
#include "tools/paratune-tpu-sim/fixture_spec.hpp"
#include "tools/paratune-tpu-sim/maxtext_trainer.hpp"
#include "sim/tpu/simulated_run.hpp"

namespace {

using namespace paratune;

// Exit statuses: 0 ran, 2 bad input, 3 the run failed (out of memory,
// a mesh the job cannot use), as a real launcher reports it.
constexpr int exit_bad_input = 2;
constexpr int exit_run_failed = 3;

// Where a run leaves its profile: tool JSON in `out`, the raw XSpace in
// MaxText's layout under `base_output_directory`/`run_name`; either or both.
struct profile_destination {
  std::string out;
  std::string base_output_directory;
  std::string run_name = "paratune";
};

// The simulated host's name, as the profiler names its file.
constexpr const char* sim_hostname = "paratune-tpu-sim";

int run_mode(const std::string& experiment, const std::string& mesh_text,
             const profile_destination& to, std::uint64_t seed, int steps) {
  const auto exp = load_experiment(experiment);
  const auto mesh = mesh_text.empty() ? exp.mesh : parse_mesh(mesh_text);
  const auto run = tpusim::simulate_tpu_run(exp, mesh, seed, steps);
  nlohmann::json line = {{"mesh", to_string(mesh)}, {"ok", run.error.empty()}};
  if (!run.error.empty()) {
    std::cerr << run.error << '\n';
    line["error"] = run.error;
    std::cout << line.dump() << '\n';
    return exit_run_failed;
  }
  if (!to.out.empty()) {
    write_xprof_dir(to_xprof_profile(run.profile), to.out, "");
    line["profile"] = to.out;
  }
  if (!to.base_output_directory.empty())
    line["xplane"] = write_maxtext_xplane(run.profile, to.base_output_directory, to.run_name,
                                          capture_name_now(), sim_hostname)
                         .string();
  line["step_time_ms"] = run.profile.step_time_ms;
  line["tokens_per_s"] = double(exp.workload.global_batch) * exp.workload.seq_len
                         / (run.profile.step_time_ms / 1000);
  std::cout << line.dump() << '\n';
  return 0;
}

int fixture_mode(const std::string& spec, const std::string& out) {
  const auto p = tpusim::load_fixture_spec(spec);
  for (const auto& path : write_xprof_dir(to_xprof_profile(p), out, ""))
    std::cout << path.string() << '\n';
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  CLI::App app{"paratune-tpu-sim: a simulated TPU cluster that writes Xprof tool outputs"};
  app.set_version_flag("--version", std::string("paratune-tpu-sim ") + paratune::version);
  app.require_subcommand(1);
  std::string experiment, mesh, out, spec;
  profile_destination to;
  std::uint64_t seed = 1;
  int steps = 3;
  auto* run = app.add_subcommand("run", "run an experiment under a mesh and profile it");
  run->add_option("--experiment", experiment, "experiment file (YAML)")->required();
  run->add_option("--mesh", mesh, "ICI mesh to run (default: the experiment's)");
  run->add_option("--out", to.out, "directory for the Xprof tool outputs");
  run->add_option("--base-output-directory", to.base_output_directory,
                  "MaxText's base_output_directory: write the raw XSpace under "
                  "<it>/<run_name>/tensorboard/plugins/profile/<time>/");
  run->add_option("--run-name", to.run_name, "MaxText's run_name (default: paratune)");
  run->add_option("--seed", seed, "cluster seed (the hidden truth)");
  run->add_option("--steps", steps, "steps the profile spans")->check(CLI::Range(1, 100000));
  auto* fixture = app.add_subcommand("fixture", "write a profile described in YAML");
  fixture->add_option("--spec", spec, "profile description (YAML)")->required();
  fixture->add_option("--out", out, "directory for the Xprof tool outputs")->required();
  tpusim::trainer_options trainer;
  auto* train = app.add_subcommand("train", "train as MaxText's train.py would, on the simulated "
                                            "slice: EXPERIMENT key=value ...");
  train->add_option("--seed", trainer.seed, "cluster seed (the hidden truth)");
  train->add_option("--time-scale", trainer.time_scale,
                    "wall seconds slept per simulated second (default 0: none)")
      ->check(CLI::Range(0.0, 1.0));
  train->add_option("--failure-rate", trainer.failure_rate,
                    "chance that a run loses a host mid-run (default 0)")
      ->check(CLI::Range(0.0, 1.0));
  train->add_option("config", trainer.config, "experiment file (YAML), in place of MaxText's config")
      ->required();
  train->add_option("overrides", trainer.overrides, "MaxText's key=value overrides");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : exit_bad_input;
  }
  if (run->parsed() && to.out.empty() && to.base_output_directory.empty()) {
    std::cerr << "error: run needs --out or --base-output-directory\n";
    return exit_bad_input;
  }
  try {
    if (run->parsed())
      return run_mode(experiment, mesh, to, seed, steps);
    if (train->parsed())
      return tpusim::run_trainer(trainer);
    return fixture_mode(spec, out);
  } catch (const input_error& e) {
    std::cerr << "error: " << e.what() << '\n';
    return exit_bad_input;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << '\n';
    return 1;
  }
}
