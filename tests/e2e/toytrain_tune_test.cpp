// A framework that exists only in the tests (tests/frameworks/toytrain: one
// folder, one registration line) tuned end to end by `paratune tune`: its
// own arguments, its own log, its own refusals, over two pools, with an
// early stop, a transient failure run again, and a report that names it.

#include <filesystem>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"
#include "tests/frameworks/toytrain/toytrain_job.hpp"

namespace paratune {
namespace {

std::string toytrain_cli() { return test::bin_dir() + "/paratune-toytrain"; }

struct toytrain_tune : ::testing::Test {
  void SetUp() override {
    dir = test::make_temp_dir("toytrain-tune");
    std::filesystem::create_directories(dir + "/runs");
    setenv("PARATUNE_CONFIGS", (test::source_dir() + "/configs").c_str(), 1);
  }
  void TearDown() override { std::filesystem::remove_all(dir); }
  std::string dir;
};

TEST_F(toytrain_tune, runs_over_two_pools_with_an_early_stop_a_retry_and_a_report) {
  const auto job = test::write_file(dir, "job.yaml", test::toytrain_job(dir));
  const auto r =
    test::run_program({toytrain_cli(), "tune", job, "--db", dir + "/pool", "--json"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["state"], "finished");
  ASSERT_EQ(j["trials"].size(), 6u) << j.dump(1);
  std::set<std::string> pools;
  int stopped_stable = 0, lost = 0, retried_from = 0;
  for (const auto& t : j["trials"]) {
    pools.insert(t["pool"].get<std::string>());
    if (t.value("stop", "") == "stable")
      ++stopped_stable;
    // toytrain's "peer lost" line, in paratune's class: a collective that
    // timed out, which may pass when run again.
    if (t.value("failure", "") == "nccl_timeout" && t["pool"] == "a")
      lost = t["index"].get<int>();
    if (t.contains("retry_of"))
      retried_from = t["retry_of"].get<int>();
  }
  EXPECT_EQ(pools, (std::set<std::string>{"a", "b"})) << j.dump(1);
  // Six steps steady after two of warm-up: every measured run ends at its
  // fifth step of twelve.
  EXPECT_GE(stopped_stable, 4) << j.dump(1);
  ASSERT_GT(lost, 0) << j.dump(1);
  EXPECT_EQ(retried_from, lost) << j.dump(1);
  // The best is toytrain's own arguments, read from its own log.
  ASSERT_TRUE(j["best"].is_object()) << j.dump(1);
  EXPECT_EQ(j["best"]["framework"], "toytrain");
  const auto args = j["best"]["trainer_args"].dump();
  EXPECT_NE(args.find("\"--tensor-degree\""), std::string::npos) << args;
  EXPECT_NE(args.find("\"--layers\",\"32\""), std::string::npos) << args;
  EXPECT_FALSE(j["best"].contains("megatron_args"));
  EXPECT_GT(j["best"]["tflops_per_gpu"].get<double>(), 150.0);

  const auto report = test::run_program(
    {toytrain_cli(), "report", j["session"].get<std::string>(), "--db", dir + "/pool"});
  ASSERT_EQ(report.status, 0) << report.err;
  // Its production command: toytrain's arguments without the tuning run's
  // --steps, and none of Megatron-LM's variables.
  EXPECT_NE(report.out.find("The toytrain arguments of the best configuration"),
            std::string::npos) << report.out;
  EXPECT_NE(report.out.find("```sh\n--tensor-degree "), std::string::npos) << report.out;
  EXPECT_EQ(report.out.find("--steps"), std::string::npos) << report.out;
  EXPECT_EQ(report.out.find("CUDA_DEVICE_MAX_CONNECTIONS"), std::string::npos) << report.out;
  EXPECT_EQ(report.out.find("Megatron-LM"), std::string::npos) << report.out;
}

TEST_F(toytrain_tune, a_job_names_a_framework_this_paratune_has_on_pools_it_can_run) {
  auto job = test::toytrain_job(dir);
  const auto refusal = [&](const std::string& text) {
    const auto r = test::run_program(
      {toytrain_cli(), "tune", test::write_file(dir, "job.yaml", text), "--db", dir + "/pool"});
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_FALSE(std::filesystem::exists(dir + "/pool/CURRENT"));
    return r.err;
  };
  auto unknown = job;
  unknown.replace(unknown.find("framework: toytrain"), 19, "framework: toytrian");
  EXPECT_NE(refusal(unknown).find("field 'framework': 'toytrian' is not a framework this paratune "
                                  "runs (it runs: maxtext, megatron-lm, toytrain)"),
            std::string::npos);
  const auto pools = job.find("pools:");
  const auto simulated = job.substr(0, pools) + "pools:\n  - {name: sim, kind: simulated}\n";
  EXPECT_NE(refusal(simulated).find("pool 'sim': a simulated pool runs paratune-sim, which trains "
                                    "Megatron-LM, not toytrain"),
            std::string::npos);
  auto foreign = job;
  foreign.replace(foreign.find("\"{framework_args}\""), 18, "\"{megatron_args}\"");
  EXPECT_NE(refusal(foreign).find("pool 'a': field 'launch': {megatron_args} is another "
                                  "framework's; this job's trials take {framework_args}"),
            std::string::npos);
}

} // namespace
} // namespace paratune
