// Mesh text, slices and how axes land on the ICI torus.

#include <gtest/gtest.h>

#include "adapters/config/catalog.hpp"
#include "core/input_error.hpp"
#include "core/perf/device_profile.hpp"
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
