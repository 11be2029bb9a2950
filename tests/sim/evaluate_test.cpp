// paratune-sim --evaluate --json: the hidden truth of one configuration,
// the same numbers core simulate() returns in process.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "adapters/config/catalog.hpp"
#include "core/megatron_args.hpp"
#include "sim/gpu/simulated_cluster.hpp"
#include "tests/sim/sim_process.hpp"

namespace paratune::test {
namespace {

class sim_evaluate : public ::testing::Test {
protected:
  void SetUp() override {
    if (!std::filesystem::exists(sim_path()))
      GTEST_SKIP() << "paratune-sim not built in " << bin_dir();
  }
};

std::vector<std::string> tp2(std::vector<std::string> more = {}) {
  auto args = with(llama3_8b_args(), {"--tensor-model-parallel-size", "2", "--sequence-parallel",
                                      "--use-distributed-optimizer", "--micro-batch-size", "1",
                                      "--train-iters", "12", "--sim-failure-rate", "0"});
  return with(args, more);
}

TEST_F(sim_evaluate, prints_the_truth_as_json) {
  const auto r = run_sim(tp2({"--evaluate", "--json"}));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"valid", "iteration_time_s", "tflops_per_gpu", "mfu",
                          "tokens_per_s_per_gpu", "peak_memory_mib", "fits", "failure"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_TRUE(j["valid"].get<bool>());
  EXPECT_TRUE(j["fits"].get<bool>());
  EXPECT_TRUE(j["failure"].is_null());
  // The same truth in process.
  std::vector<std::string> megatron;
  const auto all = tp2();
  for (size_t i = 0; i < all.size(); ++i) {
    if (all[i].rfind("--sim-", 0) == 0) {
      ++i; // and its value
      continue;
    }
    megatron.push_back(all[i]);
  }
  const auto launch = parse_megatron_args(megatron);
  const auto s = simulate(launch.model, load_cluster("dgx-a100-80g"), 8, launch.config, launch.prec);
  EXPECT_NEAR(j["iteration_time_s"].get<double>(), s.truth.iteration_time_s, 1e-9);
  EXPECT_NEAR(j["tflops_per_gpu"].get<double>(), s.truth.tflops_per_gpu, 1e-9);
  EXPECT_NEAR(j["peak_memory_mib"].get<double>(), s.truth.peak_memory_mib, 1e-6);
  EXPECT_NEAR(j["mfu"].get<double>(), s.truth.mfu, 1e-9);
  // paratune's one MFU: the TFLOP/s Megatron-LM prints over the bf16 peak.
  EXPECT_NEAR(j["mfu"].get<double>(), s.truth.tflops_per_gpu / 312, 1e-9);

  EXPECT_NEAR(j["tokens_per_s_per_gpu"].get<double>(), 512.0 * 8192 / (8 * s.truth.iteration_time_s),
              1e-6);
}

TEST_F(sim_evaluate, a_run_measures_the_truth_within_its_noise) {
  const auto truth = nlohmann::json::parse(run_sim(tp2({"--evaluate", "--json"})).out);
  const auto r = run_sim(tp2());
  ASSERT_EQ(r.log.iterations.size(), 12u);
  // Steady iterations scatter by about 1% around the truth.
  double sum = 0;
  for (size_t i = 2; i < 12; ++i)
    sum += r.log.iterations[i].elapsed_ms;
  EXPECT_NEAR(sum / 10 / 1000, truth["iteration_time_s"].get<double>(),
              0.015 * truth["iteration_time_s"].get<double>());
}

TEST_F(sim_evaluate, reports_oom_and_invalid_configurations) {
  const auto oom = nlohmann::json::parse(
    run_sim(with(llama3_8b_args(), {"--micro-batch-size", "4", "--evaluate", "--json"})).out);
  EXPECT_TRUE(oom["valid"].get<bool>());
  EXPECT_FALSE(oom["fits"].get<bool>());
  EXPECT_EQ(oom["failure"], "oom");
  EXPECT_GT(oom["peak_memory_mib"].get<double>(), 81920);
  const auto bad = nlohmann::json::parse(
    run_sim(with(llama3_8b_args(), {"--tensor-model-parallel-size", "3", "--evaluate", "--json"})).out);
  EXPECT_FALSE(bad["valid"].get<bool>());
  EXPECT_EQ(bad["failure"], "config_invalid");
  EXPECT_EQ(bad["message"], "world size (8) is not divisible by total_model_size (total_model_size=3)");
}

} // namespace
} // namespace paratune::test
