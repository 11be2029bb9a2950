// The TPU session's choice of its next mesh (core/diagnosis/next_mesh_trial):
// the planner's fastest once, the best run's proposals, the latest ones,
// the planner's next, exploratory proposals last; a mesh is its sizes.

#include <gtest/gtest.h>

#include "core/diagnosis/next_mesh_trial.hpp"

namespace paratune {
namespace {

mesh_step step(const char* mesh, const char* title, bool exploratory = false) {
  return {parse_mesh(mesh), title, exploratory};
}

std::string next_title(const std::vector<mesh_step>& planned, const std::vector<mesh_step>* best,
                       const std::vector<mesh_step>& latest, const std::vector<const char*>& run) {
  std::vector<tpu_mesh> tried;
  for (const auto* m : run)
    tried.push_back(parse_mesh(m));
  const auto n = next_mesh_trial(planned, best, latest, tried);
  return n ? n->title : "none";
}

const std::vector<mesh_step> planned = {step("fsdp=16", "plan 1"), step("data=16", "plan 2")};

TEST(next_mesh_trial, the_planners_fastest_comes_first_then_the_best_runs_proposals) {
  const std::vector<mesh_step> best = {step("data=8,model=2", "best 1"),
                                       step("data=4,model=4", "best 2", true)};
  const std::vector<mesh_step> latest = {step("data=2,model=8", "latest 1")};
  EXPECT_EQ(next_title(planned, &best, latest, {"seq=16"}), "plan 1");
  EXPECT_EQ(next_title(planned, &best, latest, {"seq=16", "fsdp=16"}), "best 1");
  EXPECT_EQ(next_title(planned, &best, latest, {"fsdp=16", "data=8,model=2"}), "latest 1");
  // Then the planner's next, and only then the exploratory proposal.
  EXPECT_EQ(next_title(planned, &best, latest, {"fsdp=16", "data=8,model=2", "data=2,model=8"}),
            "plan 2");
  EXPECT_EQ(next_title(planned, &best, latest,
                       {"fsdp=16", "data=8,model=2", "data=2,model=8", "data=16"}),
            "best 2");
  EXPECT_EQ(next_title(planned, &best, latest,
                       {"fsdp=16", "data=8,model=2", "data=2,model=8", "data=16",
                        "data=4,model=4"}),
            "none");
}

TEST(next_mesh_trial, a_proposal_of_the_planners_fastest_keeps_its_reason) {
  // The same sizes, written with an axis at 1: the same mesh.
  const std::vector<mesh_step> latest = {step("replica=1,fsdp=16,model=1", "Trade seq for fsdp")};
  EXPECT_EQ(next_title(planned, nullptr, latest, {"seq=16"}), "Trade seq for fsdp");
  EXPECT_EQ(next_title(planned, nullptr, latest, {"seq=16", "replica=1,fsdp=16"}), "plan 2");
}

TEST(next_mesh_trial, without_a_plan_or_a_diagnosis_there_is_nothing_to_run) {
  EXPECT_EQ(next_title({}, nullptr, {}, {"seq=16"}), "none");
}

} // namespace
} // namespace paratune
