// `paratune predict --experiment` and `plan --experiment`: the TPU mesh
// model from the command line, on experiments in MaxText's vocabulary
// (accelerator types, auto axes, ici_*_parallelism names, per-device batch).

#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/cli/run_paratune.hpp"

namespace paratune {
namespace {

using tpu_model_cli = test::paratune_cli;

std::string fixture(const std::string& name) {
  return test::source_dir() + "/tests/fixtures/tpu/" + name;
}

// Writes an experiment file with `body` and returns its path.
std::string experiment_with(const std::string& body) {
  const auto path = test::make_temp_dir("tpu-cli") + "/exp.yaml";
  std::ofstream(path) << body;
  return path;
}

const std::string model_32b =
    "model: {name: m, layers: 32, hidden: 8192, heads: 64, head_dim: 128, ffn: 28672, "
    "vocab: 32000, swiglu: 1}\n";

TEST_F(tpu_model_cli, predicts_maxtext_32b_on_v5p_128_within_the_measured_mfu) {
  const auto r = test::run_paratune("predict --experiment '" +
                                    fixture("maxtext-32b-v5p-128.yaml") + "' --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["chips"], 64);
  EXPECT_EQ(j["slice"], "4x4x4");  // v5p-128 counts TensorCores: 64 chips
  EXPECT_EQ(j["cluster"], "tpu-v5p");
  EXPECT_EQ(j["mesh"], "fsdp=16,model=4");
  EXPECT_EQ(j["global_batch"], 384);
  EXPECT_EQ(j["remat"], "minimal");
  // MaxText measured 71.47% (attention counted whole).
  EXPECT_NEAR(j["mfu"].get<double>(), 0.7147, 0.05);
  EXPECT_LT(j["mfu_causal"].get<double>(), j["mfu"].get<double>());
  EXPECT_NEAR(j["tflops_per_device"].get<double>(), j["mfu"].get<double>() * 459, 1e-6);
  EXPECT_TRUE(j["fits"].get<bool>());
  EXPECT_LE(j["peak_memory_gib"].get<double>(), j["memory_limit_gib"].get<double>());
  EXPECT_NEAR(j["memory_limit_gib"].get<double>(), 95 * 0.94, 1e-9);
  EXPECT_EQ(j["limiting_factor"], "compute");
  const auto& t = j["time"];
  EXPECT_NEAR(j["step_time_s"].get<double>(),
              t["compute_s"].get<double>() + t["hbm_s"].get<double>() +
                  t["exposed_collectives_s"].get<double>(),
              1e-9);
  EXPECT_EQ(j["axes"].size(), 2u);
}

TEST_F(tpu_model_cli, four_slices_put_the_dcn_axis_across_slices) {
  const auto r = test::run_paratune("predict -e '" + fixture("maxtext-16b-v5e-256x4.yaml") +
                                    "' --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["chips"], 1024);
  EXPECT_EQ(j["num_slices"], 4);
  EXPECT_EQ(j["mesh"], "fsdp=256,model=1");
  EXPECT_EQ(j["dcn_mesh"], "replica=4");  // dcn_data: the slowest axis, across slices
  EXPECT_EQ(j["global_batch"], 6 * 1024);
  EXPECT_NEAR(j["mfu"].get<double>(), 0.5914, 0.05);
  EXPECT_TRUE(j["fits"].get<bool>());
  bool dcn = false;
  for (const auto& a : j["axes"])
    dcn = dcn || a["placement"].get<std::string>().find("dcn:4") != std::string::npos;
  EXPECT_TRUE(dcn) << j["axes"].dump();
}

TEST_F(tpu_model_cli, plan_ranks_every_mesh_of_the_slice_and_counts_rejections) {
  const auto r = test::run_paratune("plan -e '" + fixture("maxtext-32b-v5p-128.yaml") +
                                    "' --top 3 --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  // 64 = 2^6 over data, fsdp, seq, model: C(9,3) = 84 ICI meshes, one DCN mesh.
  EXPECT_EQ(j["candidates"], 84);
  EXPECT_EQ(j["candidates"].get<int>(),
            j["fitting"].get<int>() + j["rejected_by_memory"].get<int>() +
                j["rejected_by_rules"].get<int>());
  ASSERT_EQ(j["top"].size(), 3u);
  EXPECT_LE(j["top"][0]["step_time_s"].get<double>(), j["top"][1]["step_time_s"].get<double>());
  EXPECT_LE(j["top"][1]["step_time_s"].get<double>(), j["top"][2]["step_time_s"].get<double>());
  for (const auto& t : j["top"])
    EXPECT_TRUE(t["fits"].get<bool>());
  // Replicating 32B on every chip (data=64) cannot fit in 95 GiB.
  EXPECT_GT(j["rejected_by_memory"].get<int>(), 0);
}

TEST_F(tpu_model_cli, plan_names_the_sizes_that_do_not_divide) {
  const auto path = experiment_with(
      "model: {name: m, layers: 4, hidden: 1536, heads: 12, ffn: 6144, vocab: 32000}\n"
      "hardware: {slice: v5e-16}\nmesh: {fsdp: 16}\nbatch: 16\nseq: 2048\n");
  const auto r = test::run_paratune("plan -e " + path + " --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["slice"], "4x4");
  // 12 heads do not split over model = 8 or 16.
  ASSERT_TRUE(j["rejected_by_rule"].contains("attention heads does not divide over model"))
      << j["rejected_by_rule"].dump();
}

TEST_F(tpu_model_cli, a_gpu_experiment_predicts_its_megatron_layout) {
  const auto r = test::run_paratune("predict -e '" + fixture("gpu-llama3-8b.yaml") + "' --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["gpus"], 8);
  EXPECT_EQ(j["config"]["tp"], 2);
  EXPECT_EQ(j["config"]["gbs"], 512);
  EXPECT_EQ(j["config"]["seq"], 8192);
  EXPECT_EQ(j["data_parallel"], 4);
  // --config changes keys of the experiment's layout.
  const auto r2 = test::run_paratune("predict -e '" + fixture("gpu-llama3-8b.yaml") +
                                     "' --config tp=4 --json");
  ASSERT_EQ(r2.status, 0) << r2.err;
  EXPECT_EQ(nlohmann::json::parse(r2.out)["data_parallel"], 2);
}

struct bad_experiment {
  std::string body;
  std::string message;
};

TEST_F(tpu_model_cli, bad_tpu_experiments_exit_2_naming_the_field) {
  const std::string tail = "mesh: {fsdp: -1}\nper_device_batch: 1\nseq: 2048\n";
  const bad_experiment cases[] = {
      {model_32b + "hardware: {slice: v5p-127}\n" + tail, "accelerator type 'v5p-127'"},
      {model_32b + "hardware: {slice: v5e-512}\n" + tail, "no v5e slice has 512 chips"},
      {model_32b + "hardware: {slice: v7x-64}\n" + tail, "with a generation of v4, v5e"},
      {model_32b + "hardware: {cluster: tpu-v5e, slice: v5p-128}\n" + tail,
       "slice v5p-128 is a TPU v5p slice, cluster tpu-v5e is TPU v5e"},
      {model_32b + "hardware: {slice: v5p-128}\nmesh: {fsdp: -1, tensor: auto}\n"
                   "per_device_batch: 1\nseq: 2048\n",
       "only one axis may be -1 (auto)"},
      {model_32b + "hardware: {slice: v5p-128}\nmesh: {fsdp: -1, tensor: 3}\n"
                   "per_device_batch: 1\nseq: 2048\n",
       "the auto axis 'fsdp' cannot take the rest of 64 chips"},
      {model_32b + "hardware: {slice: v5p-128}\n" + tail + "workload: {remat: most}\n",
       "remat 'most' is not one of MaxText's policies"},
      {model_32b + "hardware: {slice: v5p-128}\nmesh: {fsdp: -1}\nper_device_batch: 0.01\n"
                   "seq: 2048\n",
       "must be a whole number of sequences"},
      {model_32b + "hardware: {slice: v5p-128}\nmesh: {fsdp: -1}\nbatch: 64\n"
                   "per_device_batch: 1\nseq: 2048\n",
       "give batch or per_device_batch, not both"},
  };
  for (const auto& c : cases) {
    const auto r = test::run_paratune("predict -e " + experiment_with(c.body));
    EXPECT_EQ(r.status, 2) << c.message << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
  }
}

TEST_F(tpu_model_cli, a_mesh_that_cannot_run_and_mixed_options_exit_2) {
  const auto mesh = experiment_with(
      "model: {name: m, layers: 4, hidden: 3072, heads: 24, ffn: 8192, vocab: 32000}\n"
      "hardware: {slice: v5p-128}\nmesh: {model: 64}\nper_device_batch: 1\nseq: 2048\n");
  auto r = test::run_paratune("predict -e " + mesh);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("attention heads 24 does not divide over model = 64"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("attention heads"), r.err.rfind("attention heads"));
  r = test::run_paratune("predict -e " + mesh + " --model llama3-8b");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("give it without --model"), std::string::npos) << r.err;
  r = test::run_paratune("predict -e " + mesh + " --config tp=2");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("a TPU experiment's layout is its mesh"), std::string::npos) << r.err;
  r = test::run_paratune("predict --model llama3-8b --cluster dgx-a100-80g --gpus 8");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--config is required"), std::string::npos) << r.err;
}

} // namespace
} // namespace paratune
