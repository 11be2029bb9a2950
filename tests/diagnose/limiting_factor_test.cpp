// One answer per question (core/diagnosis/limiting_factor.hpp): a named
// bottleneck is never "ok", the profile and the mesh model say where they
// differ, plan's fastest mesh is placed against the proposals, and
// confidence never rises down the list. Inputs built in code.

#include <gtest/gtest.h>

#include "core/diagnosis/limiting_factor.hpp"

namespace paratune {
namespace {

diagnosis_report communication_bound(const char* comm_status) {
  diagnosis_report r;
  r.bottleneck = bottleneck_class::communication;
  r.kpis = {{"step_time", 7354.7, "ms", "info", "mean step time"},
            {"communication", 5.35, "%", comm_status, "collectives' share of device time"}};
  for (int i = 0; i < 5; ++i) {
    top_op t;
    t.name = "all-reduce." + std::to_string(i);
    t.category = "all-reduce";
    t.time_share = 0.01;
    t.resource = op_class::communication;
    r.top_ops.push_back(t);
  }
  r.time_by_class = {{"communication", 0.05}, {"compute", 0.5}, {"hbm_bandwidth", 0.45}};
  return r;
}

TEST(limiting_factor, a_named_bottleneck_is_never_ok) {
  auto r = communication_bound("ok");
  EXPECT_TRUE(flag_bottleneck_kpis(r));
  EXPECT_EQ(r.kpis[1].status, "warn");
  EXPECT_EQ(r.kpis[1].note,
            "collectives' share of device time; healthy on its own, but the diagnosed bottleneck "
            "(5 of the 5 longest operations are communication): removing all of its 5.35% would "
            "gain at most x1.057");
  EXPECT_EQ(r.kpis[0].status, "info");  // not a share of communication
}

TEST(limiting_factor, a_flagged_share_or_another_class_is_left_alone) {
  auto flagged = communication_bound("bad");
  EXPECT_FALSE(flag_bottleneck_kpis(flagged));
  EXPECT_EQ(flagged.kpis[1].status, "bad");
  // Compute-bound with its utilisation ok is no contradiction.
  auto compute = communication_bound("ok");
  compute.bottleneck = bottleneck_class::compute;
  EXPECT_FALSE(flag_bottleneck_kpis(compute));
  EXPECT_EQ(compute.kpis[1].status, "ok");
  // input_host reads its duty cycle as the idle complement.
  diagnosis_report host;
  host.bottleneck = bottleneck_class::input_host;
  host.kpis = {{"duty_cycle", 92, "%", "ok", "device busy share"}};
  EXPECT_TRUE(flag_bottleneck_kpis(host));
  EXPECT_NE(host.kpis[0].note.find("removing all of its 8.00% would gain at most x1.087"),
            std::string::npos)
      << host.kpis[0].note;
}

mesh_prediction model_of(double compute, double hbm, double comm, double exposed,
                         const char* limiting) {
  mesh_prediction p;
  p.compute_s = compute;
  p.hbm_s = hbm;
  p.comm_s = comm;
  p.exposed_comm_s = exposed;
  p.step_s = compute + hbm + exposed;
  p.limiting = limiting;
  return p;
}

TEST(limiting_factor, the_profile_and_the_model_say_where_they_differ) {
  const auto r = communication_bound("warn");
  const auto differ = compare_limiting(r, model_of(6, 1.5, 2.5, 0.5, "compute"));
  EXPECT_EQ(differ.measured, bottleneck_class::communication);
  EXPECT_EQ(differ.predicted, bottleneck_class::compute);
  EXPECT_FALSE(differ.agree);
  EXPECT_EQ(differ.explanation,
            "the profile names communication and the mesh model (predict -e, plan) compute for "
            "this mesh: the profile classes each measured op by what bounds it (a collective "
            "streaming HBM counts as HBM) and weighs its longest ops as much as all of them "
            "(compute 50%, HBM 45%, collectives 5% of its op time); the model splits the step it "
            "predicts (compute 75%, HBM 19%, exposed collectives 6% of its 8.000 s step (80% of "
            "its collective time hidden under compute))");
  const auto same = compare_limiting(r, model_of(1, 1, 4, 3, "communication"));
  EXPECT_TRUE(same.agree);
  EXPECT_EQ(same.explanation, "the profile and the mesh model (predict -e, plan) agree: "
                              "communication limits this mesh");
}

proposal at(const char* mesh, int rank, double confidence) {
  proposal p;
  p.mesh = parse_mesh(mesh);
  p.rank = rank;
  p.confidence = confidence;
  return p;
}

TEST(limiting_factor, plans_fastest_mesh_is_placed_against_the_proposals) {
  const auto current = parse_mesh("data=4,model=4,seq=16");
  auto model = model_of(6, 1.5, 2.5, 0.5, "compute");
  const std::vector<proposal> ps = {at("data=8,model=2,seq=16", 1, 0.7),
                                    at("data=8,model=4,seq=8", 2, 0.6)};
  auto far = model_of(3, 1, 1, 0, "compute");
  far.ici = parse_mesh("data=1,model=32,seq=8");
  EXPECT_EQ(compare_with_plan(current, model, far, ps),
            "plan's fastest mesh, data=1,seq=8,model=32, differs from the current "
            "data=4,seq=16,model=4 on 3 axes (predicted x2.00 by the uncalibrated model): the "
            "proposals move one factor from one axis to another, two axes at a time, from the "
            "measured mesh, so they do not reach it; run it as a trial to test the model");
  far.ici = parse_mesh("data=8,model=4,seq=8");
  EXPECT_EQ(compare_with_plan(current, model, far, ps),
            "plan's fastest mesh, data=8,seq=8,model=4, is proposal 2: plan ranks by the model "
            "alone, the proposals first by whether they attack the diagnosed bottleneck");
  far.ici = parse_mesh("data=8,model=2,seq=16");
  EXPECT_EQ(compare_with_plan(current, model, far, ps),
            "plan's fastest mesh, data=8,seq=16,model=2, is the first proposal");
  EXPECT_EQ(compare_with_plan(current, model, std::nullopt, ps),
            "plan finds no mesh of this slice that runs the job and fits");
}

TEST(limiting_factor, confidence_ranks_with_order) {
  std::vector<proposal> ps = {at("data=8", 1, 0.62), at("data=4", 2, 0.71), at("data=2", 3, 0.4),
                              at("data=1", 4, 0.55)};
  rank_confidence(ps);
  EXPECT_DOUBLE_EQ(ps[0].confidence, 0.62);
  EXPECT_DOUBLE_EQ(ps[1].confidence, 0.62);
  EXPECT_DOUBLE_EQ(ps[2].confidence, 0.4);
  EXPECT_DOUBLE_EQ(ps[3].confidence, 0.4);
}

} // namespace
} // namespace paratune
