// The replay pool end to end: `paratune tune` on a job whose pool answers
// every trial from a measured table (vTrain's, or a team's own sweep).

#include <filesystem>
#include <map>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "actors/replay_answer.hpp"
#include "adapters/config/job_loader.hpp"
#include "adapters/config/measured_tables.hpp"
#include "core/tuning/safety_guards.hpp"
#include "messages/conversions.hpp"
#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

namespace fs = std::filesystem;

const char* const example = "configs/examples/vtrain-replay-a100x8.yaml";

struct replay_pool : ::testing::Test {
  void SetUp() override { dir = test::make_temp_dir("replay-pool"); }
  void TearDown() override { fs::remove_all(dir); }

  /// paratune run from the checkout, as the README's examples are.
  test::program_result paratune(const std::string& args) {
    return test::run_shell("cd '" + test::source_dir() + "' && '" + test::bin_dir()
                           + "/paratune' " + args);
  }

  std::string job_with(const std::string& initial, const std::string& table,
                       const std::string& extra = "") {
    return test::write_file(dir, "job.yaml",
                            "name: replay\nmodel: gpt-vtrain-h1024-l24\ncluster: dgx-a100-80g\n"
                            "nodes: 1\nprecision: fp16\ninitial: " + initial
                            + "\ntrials: 6\nstop: budget\npools:\n  - {name: past, kind: replay, table: "
                            + table + "}\n" + extra);
  }

  std::string dir;
};

const measured_landscape& example_landscape() {
  static const auto all = load_vtrain_ground_truth(test::data_dir());
  for (const auto& l : all)
    if (l.name == "vtrain-h1024-l24-a16-s1024-g8-b32")
      return l;
  throw std::runtime_error("landscape missing");
}

TEST_F(replay_pool, the_example_job_loads_with_the_measured_set_as_its_search_space) {
  const auto cwd = fs::current_path();
  fs::current_path(test::source_dir());
  const auto job = load_job(example);
  fs::current_path(cwd);
  ASSERT_EQ(job.pools.size(), 1u);
  EXPECT_EQ(job.pools[0].kind, pool_kind::replay);
  EXPECT_EQ(job.pools[0].measured.size(), 20u);
  const std::map<std::string, std::vector<std::string>> space = {
      {"mbs", {"1", "2", "4", "8"}}, {"pp", {"1", "2", "4"}}, {"tp", {"1", "2", "4"}}};
  EXPECT_EQ(job.search, space);
}

TEST_F(replay_pool, every_trial_is_what_the_table_measured_and_nothing_else_runs) {
  const auto r = paratune("tune " + std::string(example) + " --db '" + dir + "/pool' --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& truth = example_landscape();
  // The example sets no `stop:`: the session converges after 4 of its 10.
  EXPECT_EQ(j["state"], "converged") << j["ended_because"];
  ASSERT_EQ(j["trials"].size(), 4u);
  EXPECT_EQ(j["refused_unavailable"], 0);
  for (const auto& t : j["trials"]) {
    const wire::config_map config = t["config"];
    const auto* measured = truth.find(wire::from_wire(config));
    ASSERT_NE(measured, nullptr) << t.dump();
    EXPECT_EQ(t["status"], "succeeded");
    EXPECT_EQ(t["pool"], "vtrain");
    EXPECT_EQ(t["tflops_per_gpu"].get<double>(), measured->tflops_per_gpu) << t.dump();
    // A100 fp16 dense peak: 312 TFLOP/s.
    EXPECT_DOUBLE_EQ(t["mfu"].get<double>(), measured->tflops_per_gpu / 312);
  }
  // Trial 1 is the job's initial configuration: tp 4, pp 1, mbs 1 (1373.163443 ms).
  EXPECT_EQ(j["trials"][0]["config"]["tp"], "4");
  EXPECT_EQ(j["trials"][0]["config"]["mbs"], "1");
  EXPECT_LE(j["best"]["tflops_per_gpu"].get<double>(), truth.best()->tflops_per_gpu);
}

TEST_F(replay_pool, start_predicted_best_spends_trial_1_on_the_models_best_candidate) {
  // tp 4, pp 1, mbs 1 is the slowest configuration measured (1373 ms): a
  // replayed sweep has no setup of the team's worth measuring first.
  const auto job = job_with("{tp: 4, pp: 1, mbs: 1, gbs: 32, seq: 1024, recompute: full}",
                            "vtrain_ground_truth_single_a100.csv", "start: predicted_best\n");
  const auto r = paratune("tune '" + job + "' --db '" + dir + "/pool' --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["trials"].size(), 6u);
  const auto& first = j["trials"][0];
  EXPECT_EQ(first["config"]["tp"], "2") << first.dump();
  EXPECT_EQ(first["config"]["pp"], "1") << first.dump();
  EXPECT_EQ(first["config"]["mbs"], "4") << first.dump();
  const auto* measured = example_landscape().find(wire::from_wire(
      first["config"].get<wire::config_map>()));
  ASSERT_NE(measured, nullptr);
  EXPECT_EQ(first["tflops_per_gpu"].get<double>(), measured->tflops_per_gpu);
  // With the host's dispatch floor in the model (core/perf: on this small
  // GPT each layer and micro-batch waits for the host), the model ranks
  // the measured optimum first: tp 2, mbs 4, 172.7 ms. Before, it ranked
  // tp 1, mbs 2 (186.5 ms) first and reached the optimum later.
  EXPECT_EQ(j["best"]["tflops_per_gpu"].get<double>(), example_landscape().best()->tflops_per_gpu);
  for (const auto& t : j["trials"])
    EXPECT_FALSE(t["config"]["tp"] == "4" && t["config"]["mbs"] == "1" && t["config"]["pp"] == "1")
        << "the initial configuration ran: " << t.dump();
}

TEST_F(replay_pool, an_unknown_start_policy_exits_2_naming_the_field) {
  const auto job = job_with("{tp: 4, pp: 1, mbs: 1, gbs: 32, seq: 1024, recompute: full}",
                            "vtrain_ground_truth_single_a100.csv", "start: best\n");
  const auto r = paratune("tune '" + job + "' --db '" + dir + "/pool'");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(job + ": line 11: field 'start': expected initial (run the initial configuration "
                             "first) or predicted_best (run the model's best candidate first), "
                             "got 'best'"),
            std::string::npos)
      << r.err;
}

TEST_F(replay_pool, an_initial_configuration_the_table_did_not_measure_is_refused) {
  const auto job = job_with("{tp: 8, pp: 1, mbs: 1, gbs: 32, seq: 1024, recompute: full}",
                            "vtrain_ground_truth_single_a100.csv");
  const auto r = paratune("tune '" + job + "' --db '" + dir + "/pool'");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(job + ": initial: {tp 8, pp 1, cp 1, mbs 1, gbs 32, seq 1024, recompute "
                             "full} on 8 GPUs is not among the 20 configurations measured in "
                             "vtrain_ground_truth_single_a100.csv"),
            std::string::npos)
      << r.err;
}

TEST_F(replay_pool, a_malformed_table_exits_2_naming_its_line) {
  const auto table = test::write_file(dir, "sweep.csv",
                                      "tp,pp,mbs,gbs,seq,recompute,iteration_ms\n"
                                      "4,1,1,32,1024,full,1373.2\n"
                                      "2,1,4,32,1024,full,fast\n");
  const auto job = job_with("{tp: 4, pp: 1, mbs: 1, gbs: 32, seq: 1024, recompute: full}", table);
  const auto r = paratune("tune '" + job + "' --db '" + dir + "/pool'");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(table + ": line 3: iteration_ms"), std::string::npos) << r.err;
}

TEST_F(replay_pool, a_teams_sweep_replays_its_times_and_its_out_of_memory_runs) {
  const auto table = test::write_file(dir, "sweep.csv",
                                      "tp,pp,mbs,gbs,seq,recompute,iteration_ms,tflops_per_gpu,"
                                      "peak_memory_mib,status\n"
                                      "4,1,1,32,1024,full,1373.2,7.25,21000,ok\n"
                                      "2,1,4,32,1024,full,172.7,57.5,30500,\n"
                                      "1,1,8,32,1024,full,,,,oom\n"
                                      "2,1,2,32,1024,full,366.9,27.1,26000,succeeded\n");
  const auto job = job_with("{tp: 4, pp: 1, mbs: 1, gbs: 32, seq: 1024, recompute: full}", table);
  const auto r = paratune("tune '" + job + "' --db '" + dir + "/pool' --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const std::map<std::string, double> tflops = {{"4/1/1", 7.25}, {"2/1/4", 57.5}, {"2/1/2", 27.1}};
  for (const auto& t : j["trials"]) {
    const std::string key = t["config"]["tp"].get<std::string>() + "/"
                            + t["config"]["pp"].get<std::string>() + "/"
                            + t["config"]["mbs"].get<std::string>();
    if (key == "1/1/8") {
      EXPECT_EQ(t["status"], "failed");
      EXPECT_EQ(t["failure"], "oom");
      continue;
    }
    ASSERT_TRUE(tflops.count(key)) << t.dump();
    EXPECT_EQ(t["status"], "succeeded");
    EXPECT_EQ(t["tflops_per_gpu"].get<double>(), tflops.at(key));
  }
  EXPECT_EQ(j["best"]["tflops_per_gpu"].get<double>(), 57.5);
}

wire::session_opened replay_session() {
  wire::session_opened s;
  s.precision = "fp16";
  s.world_size = 8;
  s.train_iters = 10;
  s.cluster.device_name = "A100-SXM4-80GB";
  s.cluster.peak_tflops_16 = 312;
  wire::pool_wire pool;
  pool.name = "past";
  pool.kind = pool_kind::replay;
  pool.table = "sweep.csv";
  pool.measured.push_back({wire::to_wire(parse_config("tp=2,mbs=4,gbs=32")), 200, 50, 30000,
                           failure_kind::none, 2});
  pool.measured.push_back({wire::to_wire(parse_config("tp=1,mbs=8,gbs=32")), 0, 0, 0,
                           failure_kind::oom, 3});
  s.pools.push_back(pool);
  return s;
}

wire::proposal proposal_of(const std::string& config) {
  wire::proposal p;
  p.trial = 3;
  p.pool = "past";
  p.config = wire::to_wire(parse_config(config));
  return p;
}

TEST(replay_answer, a_measured_run_is_answered_with_the_tables_values) {
  const auto s = replay_session();
  const auto r = replay_answer(s.pools[0], proposal_of("tp=2,mbs=4,gbs=32"), s, 1000);
  EXPECT_EQ(r.status, trial_status::succeeded);
  EXPECT_EQ(r.tflops_per_gpu, 50);
  EXPECT_EQ(r.iteration_ms, 200);
  EXPECT_DOUBLE_EQ(r.mfu, 50.0 / 312);
  EXPECT_EQ(r.peak_memory_mib, 30000);
  EXPECT_EQ(r.iterations_scored, 10);
  EXPECT_DOUBLE_EQ(r.gpu_hours, 200.0 * 10 / 3.6e6 * 8);
  EXPECT_EQ(r.pool, "past");
}

TEST(replay_answer, a_failed_run_fails_and_an_unmeasured_one_is_unavailable) {
  const auto s = replay_session();
  const auto oom = replay_answer(s.pools[0], proposal_of("tp=1,mbs=8,gbs=32"), s, 1000);
  EXPECT_EQ(oom.status, trial_status::failed);
  EXPECT_EQ(oom.error_kind, failure_kind::oom);
  EXPECT_EQ(oom.error_message, "CUDA out of memory (replay table sweep.csv, line 3)");
  const auto refused = replay_answer(s.pools[0], proposal_of("tp=4,mbs=1,gbs=32"), s, 1000);
  EXPECT_EQ(refused.status, trial_status::skipped);
  EXPECT_EQ(refused.reason, std::string(unavailable_reason) + " sweep.csv");
  EXPECT_EQ(refused.gpu_hours, 0);
}

} // namespace
} // namespace paratune
