// Mesh text, slices and how axes land on the ICI torus.

#include <gtest/gtest.h>

#include "adapters/config/catalog.hpp"
#include "core/input_error.hpp"
#include "core/perf/device_profile.hpp"
#include "core/tpu/mesh_model.hpp"
#include "core/tpu/remat_policy.hpp"
#include "core/tpu/tpu_accelerator.hpp"
#include "core/tpu/tpu_topology.hpp"
#include "tests/diagnose/diagnose_support.hpp"

namespace paratune {
namespace {

TEST(tpu_mesh, parses_key_value_and_python_dict_forms) {
  auto a = parse_mesh("data=8,model=2,seq=16");
  auto b = parse_mesh("{'model': 2, 'data': 8, 'seq': 16}");
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.at(mesh_axis::data), 8);
  EXPECT_EQ(a.at(mesh_axis::seq), 16);
  EXPECT_EQ(a.chips(), 256);
  EXPECT_EQ(to_string(a), "data=8,seq=16,model=2");
  auto c = parse_mesh("tensor=4 context=2 replica=1");
  EXPECT_EQ(c.at(mesh_axis::model), 4);
  EXPECT_EQ(c.at(mesh_axis::seq), 2);
  EXPECT_EQ(to_string(c), "replica=1,seq=2,model=4");  // a written size-1 axis stays
}

TEST(tpu_mesh, rejects_unknown_axes_bad_sizes_and_repeats) {
  EXPECT_THROW(parse_mesh("pipeline=2"), input_error);
  EXPECT_THROW(parse_mesh("data=0"), input_error);
  EXPECT_THROW(parse_mesh("data=x"), input_error);
  EXPECT_THROW(parse_mesh("data=2,data=4"), input_error);
  EXPECT_THROW(parse_mesh("data"), input_error);
  EXPECT_THROW(parse_mesh(""), input_error);
}

TEST(tpu_mesh, describes_changes) {
  EXPECT_EQ(describe_mesh_change(parse_mesh("data=4,model=4"), parse_mesh("data=8,model=2")),
            "data 4->8, model 4->2");
  EXPECT_EQ(describe_mesh_change(parse_mesh("data=4"), parse_mesh("data=4")), "no change");
}

TEST(tpu_slice, parses_dimensions) {
  auto s = parse_slice("8x8x8");
  EXPECT_EQ(s.dims, (std::vector<int>{8, 8, 8}));
  EXPECT_EQ(s.chips(), 512);
  EXPECT_EQ(parse_slice("16x16", 2).chips(), 512);
  EXPECT_THROW(parse_slice("8x"), input_error);
  EXPECT_THROW(parse_slice("2x2x2x2"), input_error);
  EXPECT_THROW(parse_slice("axb"), input_error);
}

TEST(tpu_topology, full_wrapped_dimension_is_a_ring_partial_one_a_line) {
  test::use_source_configs();
  auto v5p = load_cluster("tpu-v5p");
  const auto& prof = profile_for(v5p.device);
  const double link = 90e9 * prof.scale_up_efficiency;
  // model=8 takes the innermost dimension whole: both directions of two links.
  auto p = place_mesh(parse_mesh("model=8,data=16,seq=4"), tpu_mesh{}, parse_slice("8x8x8"), v5p,
                      prof);
  EXPECT_EQ(p.of(mesh_axis::model).placement, "z:8 ring");
  EXPECT_DOUBLE_EQ(p.of(mesh_axis::model).ici_bytes_per_s, 2 * link);
  // seq=4 gets half of y (a line), data the other half plus all of x.
  EXPECT_EQ(p.of(mesh_axis::seq).placement, "y:4 line");
  EXPECT_DOUBLE_EQ(p.of(mesh_axis::seq).ici_bytes_per_s, link);
  EXPECT_EQ(p.of(mesh_axis::data).placement, "y:2 line + x:8 ring");
  EXPECT_DOUBLE_EQ(p.of(mesh_axis::data).ici_bytes_per_s, 3 * link);
  EXPECT_TRUE(p.exact);
}

TEST(tpu_topology, small_v6e_slices_have_no_wraparound_and_dcn_is_slow) {
  test::use_source_configs();
  auto v6e = load_cluster("tpu-v6e");
  const auto& prof = profile_for(v6e.device);
  auto p = place_mesh(parse_mesh("data=4,model=4"), parse_mesh("replica=2"),
                      parse_slice("4x4", 2), v6e, prof);
  EXPECT_EQ(p.of(mesh_axis::model).placement, "y:4 line");
  EXPECT_EQ(p.of(mesh_axis::replica).placement, "dcn:2");
  EXPECT_EQ(p.of(mesh_axis::replica).size(), 2);
  EXPECT_LT(p.of(mesh_axis::replica).dcn_bytes_per_s, p.of(mesh_axis::model).ici_bytes_per_s);
  // A ring all-reduce moves 2 (n-1)/n of the buffer over the axis's links.
  const auto& m = p.of(mesh_axis::model);
  const double t = axis_all_reduce_s(m, 1e9);
  EXPECT_NEAR(t, 2 * 0.75 * 1e9 / m.ici_bytes_per_s + 2 * 1 * m.ici_latency_s, 1e-12);
  // All-to-all is bisection-bound: a 16-chip ring costs more per byte than a 4-chip one.
  axis_link wide = m;
  wide.ici_size = 16;
  EXPECT_GT(axis_all_to_all_s(wide, 1e9), 3 * axis_all_to_all_s(m, 1e9));
}

} // namespace
} // namespace paratune

namespace paratune {
namespace {

// Cloud TPU's topologies for each accelerator type: v4/v5p names count
// TensorCores (two per chip), v5e/v6e names count chips.
TEST(tpu_accelerator, names_give_chips_and_the_cloud_topology) {
  const std::pair<const char*, const char*> cases[] = {
      {"v5e-256", "16x16"}, {"v5litepod-16", "4x4"}, {"v5e-8", "2x4"},  {"v6e-128", "8x16"},
      {"v5p-8", "2x2x1"},   {"v5p-32", "2x2x4"},     {"v5p-128", "4x4x4"}, {"v5p-256", "4x4x8"},
      {"v5p-512", "4x8x8"}, {"v5p-1024", "8x8x8"},   {"v5p-2048", "8x8x16"},
      {"v5p-4096", "8x16x16"}, {"v4-128", "4x4x4"},  {"v4-384", "4x4x12"}};
  for (const auto& [name, shape] : cases)
    EXPECT_EQ(to_string(parse_accelerator(name).slice), shape) << name;
  EXPECT_EQ(parse_accelerator("v5p-256").chips, 128);
  EXPECT_EQ(parse_accelerator("v5p-256").generation, tpu_generation::v5p);
  EXPECT_EQ(parse_accelerator("v4-384", 2).slice.chips(), 384);
  EXPECT_EQ(to_string(parse_accelerator("v5e-256", 4).slice), "4 x 16x16");
}

TEST(tpu_accelerator, impossible_names_are_refused_with_the_reason) {
  const std::pair<const char*, const char*> cases[] = {
      {"v5p-127", "positive even number"},
      {"v5e-512", "no v5e slice has 512 chips"},
      {"v5e-24", "no v5e slice has 24 chips"},
      {"v4-200", "no v4 slice has 100 chips"},
      {"v9-8", "with a generation of"},
      {"v5e-", "positive number of chips"},
      {"v5e-2x", "is not a count"},
  };
  for (const auto& [name, words] : cases) {
    try {
      parse_accelerator(name);
      ADD_FAILURE() << name << " accepted";
    } catch (const input_error& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  }
}

TEST(tpu_accelerator, cluster_devices_name_their_generation) {
  EXPECT_EQ(generation_of_device("TPU v5p"), tpu_generation::v5p);
  EXPECT_EQ(generation_of_device("TPU v4"), tpu_generation::v4);
  EXPECT_EQ(generation_of_device("A100-SXM4-80GB"), std::nullopt);
}

TEST(tpu_mesh_auto, the_auto_axis_takes_the_chips_the_others_leave) {
  auto m = parse_mesh("ici_fsdp_parallelism=-1,ici_tensor_parallelism=4");
  ASSERT_EQ(m.auto_axis(), mesh_axis::fsdp);
  fill_auto_axis(m, 64);
  EXPECT_EQ(m.at(mesh_axis::fsdp), 16);
  EXPECT_EQ(m.at(mesh_axis::model), 4);
  auto d = parse_mesh("dcn_data_parallelism=4");
  EXPECT_EQ(d.at(mesh_axis::replica), 4);
  EXPECT_THROW(parse_mesh("fsdp=-1,seq=auto"), input_error);
  auto bad = parse_mesh("fsdp=auto,model=3");
  EXPECT_THROW(fill_auto_axis(bad, 64), input_error);
}

// Which forward work each of MaxText's policies redoes, derived from what
// it keeps: the residuals the backward pass reads.
TEST(remat_policy, plans_follow_from_the_saved_tensors) {
  const auto full = plan_of(remat_policy::full);
  EXPECT_TRUE(full.recompute_qkv && full.recompute_attention && full.recompute_out &&
              full.recompute_mlp_in);
  const auto minimal = plan_of(remat_policy::minimal);
  EXPECT_TRUE(minimal.recompute_attention);
  EXPECT_FALSE(minimal.recompute_qkv || minimal.recompute_out || minimal.recompute_mlp_in);
  EXPECT_FALSE(minimal.mlp_out);  // nothing in backward reads it
  EXPECT_FALSE(plan_of(remat_policy::minimal_with_context).recomputes_any());
  const auto except_mlp = plan_of(remat_policy::save_dot_except_mlp);
  EXPECT_TRUE(except_mlp.recompute_mlp_in && except_mlp.recompute_attention);
  EXPECT_FALSE(except_mlp.recompute_out || except_mlp.recompute_qkv);
  const auto qkv_only = plan_of(remat_policy::save_qkv_proj);
  EXPECT_TRUE(qkv_only.recompute_out && qkv_only.recompute_mlp_in);
  EXPECT_FALSE(qkv_only.recompute_qkv);
  const auto offloaded = plan_of(remat_policy::qkv_proj_offloaded);
  EXPECT_TRUE(offloaded.offloaded && offloaded.qkv);
  EXPECT_TRUE(plan_of(remat_policy::none).saves_everything);
  remat_policy p;
  EXPECT_TRUE(parse_remat_policy("save_dot_with_context_except_mlp", p));
  EXPECT_EQ(p, remat_policy::save_dot_with_context_except_mlp);
  EXPECT_FALSE(parse_remat_policy("custom", p));
}

mesh_prediction predict_7b_on_v5p(remat_policy policy) {
  mesh_workload w;
  w.global_batch = 64;
  w.seq_len = 4096;
  w.remat = policy;
  return predict_mesh(load_model("llama2-7b"), load_cluster("tpu-v5p"), parse_slice("4x4x4"),
                      parse_mesh("fsdp=16,model=4"), tpu_mesh{}, w);
}

// More saved tensors: more activation memory, less recompute time.
TEST(remat_policy, memory_and_time_order_from_none_to_full) {
  std::vector<double> memory, step;
  for (auto policy : {remat_policy::none, remat_policy::minimal, remat_policy::save_qkv_proj,
                      remat_policy::full}) {
    const auto p = predict_7b_on_v5p(policy);
    memory.push_back(p.memory.activations_gib);
    step.push_back(p.step_s);
  }
  for (std::size_t i = 1; i < memory.size(); ++i) {
    EXPECT_LT(memory[i], memory[i - 1]) << i;
    EXPECT_GT(step[i], step[i - 1]) << i;
  }
}

} // namespace
} // namespace paratune
