// The TPU mesh model: what it predicts must move the right way when an
// axis changes, and MaxText's intensity rule must read as §2.6 states it.

#include <gtest/gtest.h>

#include "adapters/config/catalog.hpp"
#include "core/tpu/mesh_model.hpp"
#include "tests/diagnose/diagnose_support.hpp"

namespace paratune {
namespace {

struct mesh_model_test : ::testing::Test {
  void SetUp() override { test::use_source_configs(); }

  mesh_prediction run(const std::string& cluster, const std::string& slice,
                      const std::string& mesh, const std::string& model, mesh_workload w) {
    return predict_mesh(load_model(model), load_cluster(cluster), parse_slice(slice),
                        parse_mesh(mesh), tpu_mesh{}, w);
  }
  static mesh_workload workload(int batch, int seq) {
    mesh_workload w;
    w.global_batch = batch;
    w.seq_len = seq;
    return w;
  }
};

TEST_F(mesh_model_test, v6e_axis_hardware_intensity_is_the_sharding_guide_number) {
  // §2.6: v6e per ICI axis 917e12 / 180e9 ~ 5100 FLOP/B; a full 16-chip
  // dimension is a ring, the guide's 180 GB/s.
  auto p = run("tpu-v6e", "16x16", "data=16,model=16", "llama3-8b", workload(256, 4096));
  ASSERT_TRUE(p.valid());
  ASSERT_EQ(p.axes.size(), 2u);
  for (const auto& a : p.axes)
    EXPECT_NEAR(a.hardware_intensity, 918e12 / 180e9, 1);
  const auto& model = p.axes[1];
  EXPECT_EQ(model.axis, mesh_axis::model);
  EXPECT_DOUBLE_EQ(model.intensity, 14336.0 / 16);  // M / |TP|
  EXPECT_FALSE(model.compute_bound);
  const auto& data = p.axes[0];
  EXPECT_DOUBLE_EQ(data.intensity, 256.0 / 16 * 4096);  // local batch in tokens
  EXPECT_TRUE(data.compute_bound);
}

TEST_F(mesh_model_test, sizes_that_do_not_divide_are_problems_not_numbers) {
  auto p = run("tpu-v5e", "16x16", "data=16,seq=16", "llama3-8b", workload(8, 65536));
  EXPECT_FALSE(p.valid());
  ASSERT_FALSE(p.problems.empty());
  EXPECT_NE(p.problems[0].find("batch per micro-step 8"), std::string::npos);
  auto r = run("tpu-v5e", "16x16", "data=4,model=4", "llama3-8b", workload(8, 65536));
  ASSERT_FALSE(r.valid());
  EXPECT_NE(r.problems.back().find("spans 16 chips"), std::string::npos);
}

TEST_F(mesh_model_test, more_tensor_parallelism_costs_more_collective_time_per_chip) {
  auto w = workload(64, 8192);
  auto narrow = run("tpu-v5e", "16x16", "data=64,model=4", "llama3-8b", w);
  auto wide = run("tpu-v5e", "16x16", "data=16,model=16", "llama3-8b", w);
  ASSERT_TRUE(narrow.valid() && wide.valid());
  auto tp = [](const mesh_prediction& p) {
    for (const auto& a : p.axes)
      if (a.axis == mesh_axis::model)
        return a.comm_s;
    return 0.0;
  };
  EXPECT_GT(tp(wide), 2 * tp(narrow));
  // Tensor parallelism shards weights, so memory falls as it widens.
  EXPECT_LT(wide.memory.params_gib, narrow.memory.params_gib / 3.9);
}

TEST_F(mesh_model_test, causal_context_parallelism_pays_for_imbalance_unless_striped) {
  auto w = workload(16, 32768);
  auto plain = run("tpu-v5p", "4x4x4", "data=4,seq=16", "llama3-8b", w);
  w.cp_load_balanced = true;
  auto striped = run("tpu-v5p", "4x4x4", "data=4,seq=16", "llama3-8b", w);
  auto attention = [](const mesh_prediction& p) {
    for (const auto& op : p.ops)
      if (op.category == "custom-call")
        return op.seconds;
    return 0.0;
  };
  // 2 - 1/16 times the balanced work.
  EXPECT_NEAR(attention(plain) / attention(striped), 2 - 1.0 / 16, 1e-9);
}

TEST_F(mesh_model_test, remat_trades_activation_memory_for_recompute) {
  auto w = workload(64, 8192);
  w.remat = remat_policy::full;
  auto full = run("tpu-v5p", "4x4x4", "fsdp=64", "llama3-8b", w);
  w.remat = remat_policy::none;
  auto none = run("tpu-v5p", "4x4x4", "fsdp=64", "llama3-8b", w);
  w.remat = remat_policy::minimal;
  auto minimal = run("tpu-v5p", "4x4x4", "fsdp=64", "llama3-8b", w);
  EXPECT_LT(full.memory.activations_gib, minimal.memory.activations_gib);
  EXPECT_LT(minimal.memory.activations_gib, none.memory.activations_gib);
  EXPECT_GT(full.compute_s, none.compute_s * 1.2);
  EXPECT_NEAR(full.model_flops_per_chip, none.model_flops_per_chip, 1);  // useful work equal
}

TEST_F(mesh_model_test, a_replicated_big_model_does_not_fit_and_says_so) {
  auto p = run("tpu-v5e", "4x4", "data=16", "llama3-8b", workload(16, 4096));
  ASSERT_TRUE(p.valid());
  EXPECT_FALSE(p.memory.fits);
  EXPECT_EQ(p.limiting, "memory_capacity");
  // fp32 params and gradients plus Adam moments: 16 bytes per parameter.
  EXPECT_NEAR(p.memory.params_gib + p.memory.grads_gib + p.memory.optimizer_gib,
              16 * load_model("llama3-8b").parameters() / (1024.0 * 1024 * 1024), 0.01);
}

TEST_F(mesh_model_test, few_tokens_per_chip_make_weight_reading_matmuls_hbm_bound) {
  // One sequence of 256 tokens per chip: every matmul streams its weights.
  auto p = run("tpu-v6e", "4x4", "fsdp=16", "llama3-8b", workload(16, 256));
  ASSERT_TRUE(p.valid());
  bool hbm_matmuls = false;
  for (const auto& op : p.ops)
    hbm_matmuls |= op.category == "convolution fusion" && op.bound_by == "HBM";
  EXPECT_TRUE(hbm_matmuls);
  auto big = run("tpu-v6e", "4x4", "fsdp=16", "llama3-8b", workload(16, 4096));
  EXPECT_EQ(big.limiting, "compute");
}

TEST_F(mesh_model_test, step_time_is_compute_plus_memory_plus_exposed_collectives) {
  auto p = run("tpu-v5e", "16x16", "data=4,model=4,seq=16", "llama3-8b", workload(8, 65536));
  ASSERT_TRUE(p.valid());
  EXPECT_NEAR(p.step_s, p.compute_s + p.hbm_s + p.exposed_comm_s, 1e-12);
  EXPECT_LE(p.exposed_comm_s, p.comm_s);
  EXPECT_GT(p.mfu, 0.05);
  EXPECT_LT(p.mfu, 0.8);
  EXPECT_NEAR(p.tokens_per_s, 8.0 * 65536 / p.step_s, 1e-6);
  for (std::size_t i = 1; i < p.ops.size(); ++i)
    EXPECT_GE(p.ops[i - 1].seconds, p.ops[i].seconds);  // longest first
}

} // namespace
} // namespace paratune
