// The TPU tuning benchmark (bench/tpu_tuning_quality.cpp): the scenario's
// mesh space and optimum, paratune's loop as the TPU session decides it,
// the peers on a tiny budget (the trial protocol with a scripted peer and,
// where python3-optuna is installed, Optuna itself) and the perturbed
// reality. No timing is asserted.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <unistd.h>

#include "adapters/diagnosis/experiment_loader.hpp"
#include "bench/tpu_tuning_quality/tpu_strategies.hpp"
#include "bench/tuning_quality/metrics.hpp"

namespace paratune::bench {
namespace {

/// ASAP experiment 2 (v6e-16, HBM-bound): 35 planner meshes.
const tpu_scenario& hbm_scenario() {
  static const tpu_scenario s = [] {
    auto exp = load_experiment(std::string(PARATUNE_SOURCE_DIR)
                               + "/tests/fixtures/asap/v6e-16-hbm/experiment.yaml");
    return make_tpu_scenario(exp.name, "asap", exp);
  }();
  return s;
}

std::filesystem::path profile_dir() {
  return std::filesystem::temp_directory_path()
         / ("paratune-tpu-bench-test-" + std::to_string(::getpid()));
}

bool in_space(const tpu_scenario& s, const tpu_mesh& m) {
  return std::find(s.space.begin(), s.space.end(), m) != s.space.end();
}

TEST(tpu_tuning_quality, the_space_is_the_planners_meshes_that_start) {
  const auto& s = hbm_scenario();
  EXPECT_EQ(s.planner_meshes, 35);
  EXPECT_EQ(s.space.size(), 30u);
  const tpu_runner runner(s, tpu_reality::simulated, 1);
  const auto [best, mesh] = runner.optimum();
  EXPECT_EQ(to_string(mesh), "data=4,model=4");
  EXPECT_NEAR(best, 210.0, 0.05);
  // The job's own mesh (seq 4, no model axis) is at a fifth of it.
  EXPECT_NEAR(runner.run(s.exp.mesh).record.true_tflops / best, 0.188, 0.001);
}

TEST(tpu_tuning_quality, paratune_runs_the_expert_mesh_first) {
  const auto& s = hbm_scenario();
  const tpu_runner runner(s, tpu_reality::simulated, 1);
  const auto log = run_tpu_paratune(runner, 5, profile_dir());
  std::filesystem::remove_all(profile_dir());
  ASSERT_EQ(log.size(), 5u);
  // ASAP's expert mesh, which is also the planner's fastest: the model puts
  // the job's own mesh 4.6 times slower, so it does not run first
  // (first_mesh_trial).
  EXPECT_EQ(log[0].mesh, parse_mesh("data=4,model=4"));
  for (std::size_t i = 0; i < log.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      EXPECT_FALSE(log[i].mesh == log[j].mesh) << "trial " << i + 1 << " repeats " << j + 1;
  const auto m = measure_run(records_of(log), 2, runner.optimum().first, s.exp.slice.chips());
  EXPECT_EQ(m.trials_to_99, 1);
  EXPECT_GE(m.share, 0.99);
}

TEST(tpu_tuning_quality, the_model_free_peers_run_distinct_meshes_of_the_space) {
  const auto& s = hbm_scenario();
  const tpu_runner runner(s, tpu_reality::simulated, 1);
  const auto random = run_tpu_random(runner, 6, 7);
  const auto one = run_tpu_one_change(runner, 6);
  const auto grid = run_tpu_model_grid(runner, 3);
  ASSERT_EQ(random.size(), 6u);
  ASSERT_EQ(one.size(), 6u);
  ASSERT_EQ(grid.size(), 3u);
  EXPECT_EQ(one.front().mesh, s.exp.mesh);
  EXPECT_EQ(grid.front().mesh, parse_mesh("data=4,model=4"));
  for (const auto* log : {&random, &one}) {
    std::vector<std::string> keys;
    for (const auto& t : *log) {
      EXPECT_TRUE(in_space(s, t.mesh) || t.mesh == s.exp.mesh) << to_string(t.mesh);
      keys.push_back(mesh_key(t.mesh));
    }
    std::sort(keys.begin(), keys.end());
    EXPECT_EQ(std::unique(keys.begin(), keys.end()), keys.end());
  }
}

peer_options scripted_peer(const std::vector<std::string>& asks) {
  // Reads the start line, then sends the asks in turn, one per reply.
  std::string script =
      "import sys\n"
      "sys.stdin.readline()\n"
      "lines = sys.argv[1:]\n"
      "i = 0\n"
      "while True:\n"
      "    print(lines[i % len(lines)], flush=True)\n"
      "    i += 1\n"
      "    if not sys.stdin.readline(): break\n";
  peer_options o;
  o.command = {"/usr/bin/python3", "-c", script};
  o.command.insert(o.command.end(), asks.begin(), asks.end());
  o.first_reply = std::chrono::milliseconds(5000);
  o.reply = std::chrono::milliseconds(5000);
  return o;
}

TEST(tpu_tuning_quality, the_peer_protocol_refuses_what_does_not_start_at_no_trial_cost) {
  const auto& s = hbm_scenario();
  const tpu_runner runner(s, tpu_reality::simulated, 1);
  // fsdp 16 x model 16 does not divide 16 chips: refused. fsdp 1, seq 1,
  // model 4 leaves data 4: the expert mesh.
  const auto r = run_tpu_peer(
      runner, 2, 1,
      scripted_peer({R"({"op":"ask","config":{"fsdp":"16","seq":"1","model":"16"}})",
                     R"({"op":"ask","config":{"fsdp":"1","seq":"1","model":"4"}})"}));
  EXPECT_EQ(r.end.error, "");
  ASSERT_EQ(r.log.size(), 2u);
  EXPECT_EQ(r.end.refused, 2);
  EXPECT_EQ(r.log.front().mesh, parse_mesh("data=4,model=4"));
  EXPECT_EQ(r.log.front().record.outcome.status, trial_status::succeeded);
}

TEST(tpu_tuning_quality, optuna_tpe_spends_exactly_a_tiny_budget) {
  if (std::system("/usr/bin/python3 -c 'import optuna' 2>/dev/null") != 0)
    GTEST_SKIP() << "python3-optuna is not installed (tools/quickstart installs it)";
  const auto& s = hbm_scenario();
  const tpu_runner runner(s, tpu_reality::simulated, 1);
  const auto r = run_tpu_peer(runner, 3, 42, optuna_peer(PARATUNE_SOURCE_DIR));
  EXPECT_EQ(r.end.error, "");
  ASSERT_EQ(r.log.size(), 3u);
  for (const auto& t : r.log)
    EXPECT_TRUE(in_space(s, t.mesh)) << to_string(t.mesh);
}

TEST(tpu_tuning_quality, the_perturbed_reality_slows_each_mesh_by_its_own_fixed_draw) {
  const auto m = parse_mesh("data=4,model=4");
  EXPECT_EQ(step_factor(tpu_reality::simulated, "job", 1, m), 1.0);
  const double f = step_factor(tpu_reality::perturbed, "job", 1, m);
  EXPECT_GE(f, 1.0);
  EXPECT_LT(f, 1.12);
  EXPECT_EQ(f, step_factor(tpu_reality::perturbed, "job", 1, parse_mesh("replica=1,data=4,model=4")));
  EXPECT_NE(f, step_factor(tpu_reality::perturbed, "job", 2, m));
}

} // namespace
} // namespace paratune::bench
