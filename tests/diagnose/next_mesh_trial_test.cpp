// The TPU session's choice of its next mesh (core/diagnosis/next_mesh_trial):
// the planner's fastest once, the best run's proposals, the latest ones,
// the planner's next, exploratory proposals last; a mesh is its sizes. And
// its first: the job's own mesh unless the planner's fastest is predicted
// at least 5% faster, or the job's mesh does not fit.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "adapters/diagnosis/experiment_loader.hpp"
#include "core/diagnosis/next_mesh_trial.hpp"
#include "tests/diagnose/diagnose_support.hpp"
#include "tests/fixtures/test_paths.hpp"

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

double predicted_step_s(const experiment_spec& exp) {
  return predict_mesh(exp.model, exp.cluster, exp.slice, exp.mesh, exp.dcn_mesh, exp.workload)
    .step_s;
}

TEST(first_mesh_trial, asaps_jobs_start_at_the_planners_fastest_mesh) {
  // The model puts each of ASAP's starting meshes well behind the planner's
  // fastest (v6e-16: 3330 ms against 725 ms; v5p-512: 23.4 s against
  // 17.3 s; v5e-256: 4.53 s against 3.67 s), so the first trial goes there.
  const std::vector<std::pair<const char*, const char*>> cases = {
    {"v6e-16-hbm", "data=4,model=4"},
    {"v5p-512-compute", "fsdp=256,model=2"},
    {"v5e-256-comm", "fsdp=8,model=32"}};
  for (const auto& [scenario, fastest] : cases) {
    SCOPED_TRACE(scenario);
    const auto exp = test::load_fixture_experiment(test::asap_dir(scenario));
    const auto planned = planned_mesh_steps(exp, 5);
    ASSERT_FALSE(planned.empty());
    EXPECT_LT(planned.front().predicted_step_s, 0.95 * predicted_step_s(exp));
    const auto first = first_mesh_trial(exp, planned);
    EXPECT_EQ(first.mesh, parse_mesh(fastest));
    EXPECT_EQ(first.title, planned.front().title);
    EXPECT_EQ(first.title.rfind("The planner's fastest mesh (predicted ", 0), 0u) << first.title;
  }
  const auto v6e = test::load_fixture_experiment(test::asap_dir("v6e-16-hbm"));
  EXPECT_NEAR(predicted_step_s(v6e), 3.330, 0.001);
  EXPECT_NEAR(planned_mesh_steps(v6e, 1).front().predicted_step_s, 0.7248, 0.0001);
}

TEST(first_mesh_trial, the_jobs_own_mesh_runs_first_within_five_percent_of_the_fastest) {
  auto exp = test::load_fixture_experiment(test::asap_dir("v6e-16-hbm"));
  const double job = predicted_step_s(exp);
  const auto other = [&](double step_s) {
    return std::vector<mesh_step>{{parse_mesh("data=2,model=8"), "plan 1", false, step_s}};
  };
  EXPECT_EQ(first_mesh_trial(exp, other(0.96 * job)).mesh, exp.mesh);
  EXPECT_EQ(first_mesh_trial(exp, other(0.96 * job)).title, "The job's own mesh");
  EXPECT_EQ(first_mesh_trial(exp, other(0.94 * job)).mesh, parse_mesh("data=2,model=8"));
  // A plan without predictions, or none, says nothing against the job's mesh.
  EXPECT_EQ(first_mesh_trial(exp, other(0)).mesh, exp.mesh);
  EXPECT_EQ(first_mesh_trial(exp, {}).mesh, exp.mesh);
  // The job's mesh is the planner's fastest: it runs, under its own name.
  exp.mesh = parse_mesh("data=4,model=4");
  const auto planned = planned_mesh_steps(exp, 3);
  EXPECT_EQ(first_mesh_trial(exp, planned).title, "The job's own mesh");
}

TEST(first_mesh_trial, a_job_mesh_that_does_not_fit_never_runs_first) {
  // Held-out v6e-32's Llama-3-8B at 64 x 4096 runs out of HBM on its own
  // mesh: the planner's fastest runs first even where it is not faster.
  test::use_source_configs();
  const auto exp = load_experiment(test::source_dir()
                                   + "/bench/tpu_scenarios/held-out/v6e-32-hbm-llama3-8b.yaml");
  const auto job =
    predict_mesh(exp.model, exp.cluster, exp.slice, exp.mesh, exp.dcn_mesh, exp.workload);
  ASSERT_TRUE(job.valid());
  EXPECT_FALSE(job.memory.fits);
  const std::vector<mesh_step> planned = {
    {parse_mesh("data=2,fsdp=8,model=2"), "plan 1", false, 2 * job.step_s}};
  EXPECT_EQ(first_mesh_trial(exp, planned).mesh, parse_mesh("data=2,fsdp=8,model=2"));
}

// Issue 45, part 9: the verdict a TPU session stores with its job, so that
// its answer says why the job's own mesh was not run. configs/examples'
// TPU experiment starts from pure data parallelism, which `predict -e`
// puts at 139.3 GiB per chip against 30.1 usable.
TEST(job_mesh_verdict, says_the_predicted_peak_against_the_usable_hbm) {
  test::use_source_configs();
  auto exp = load_experiment(test::source_dir() + "/configs/examples/llama3-8b-v6e-16.yaml");
  const auto job =
    predict_mesh(exp.model, exp.cluster, exp.slice, exp.mesh, exp.dcn_mesh, exp.workload);
  ASSERT_FALSE(job.memory.fits);
  EXPECT_EQ(job_mesh_verdict(exp),
            fmt::format("predicted not to fit: a peak of {:.1f} GiB per chip against {:.1f} GiB "
                        "of usable HBM", job.memory.total_gib, job.memory.limit_gib));
  EXPECT_EQ(job_mesh_verdict(exp),
            "predicted not to fit: a peak of 139.3 GiB per chip against 30.1 GiB of usable HBM");
  // The planner's fastest for it fits: no verdict.
  exp.mesh = parse_mesh("fsdp=16");
  EXPECT_EQ(job_mesh_verdict(exp), "");
  // A mesh whose sizes do not make the slice names the rule.
  exp.mesh = parse_mesh("fsdp=3");
  EXPECT_EQ(job_mesh_verdict(exp).rfind("it breaks the mesh rules: ", 0), 0u)
    << job_mesh_verdict(exp);
}

} // namespace
} // namespace paratune
