// Measurements beat the model: TPU jobs whose profile shows them running
// although the uncorrected mesh model puts them over HBM (ASAP's jobs on
// smaller slices, tests/fixtures/tpu/runs-over-model/). The model's memory
// is corrected by that evidence, proposals are screened with the corrected
// figure and predicted faster, and fewer than three come with the reason.

#include <gtest/gtest.h>

#include "adapters/diagnosis/diagnosis_run.hpp"
#include "adapters/diagnosis/evidence_sources.hpp"
#include "adapters/diagnosis/experiment_loader.hpp"
#include "core/tpu/mesh_model.hpp"
#include "tests/diagnose/diagnose_support.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

diagnosis_outcome diagnose(const std::string& experiment, const std::string& profile) {
  test::use_source_configs();
  const auto exp = load_experiment(test::source_dir() + "/tests/fixtures/tpu/runs-over-model/" +
                                   experiment);
  evidence_request r;
  r.xprof = test::source_dir() + "/tests/fixtures/asap/" + profile;
  return run_diagnosis(exp, gather_evidence(r), {}, {});
}

using test::has_note;

// The premise: without the evidence, the model says the baseline cannot fit.
TEST(measured_memory, the_uncorrected_model_puts_both_baselines_over_hbm) {
  test::use_source_configs();
  for (const char* name : {"v5e-64-comm.yaml", "v5p-256-compute.yaml"}) {
    const auto e = load_experiment(test::source_dir() + "/tests/fixtures/tpu/runs-over-model/" +
                                   name);
    const auto p = predict_mesh(e.model, e.cluster, e.slice, e.mesh, e.dcn_mesh, e.workload);
    ASSERT_TRUE(p.valid()) << name;
    EXPECT_FALSE(p.memory.fits) << name << " " << p.memory.total_gib;
  }
}

TEST(measured_memory, v5e_8x8_gets_three_proposals_predicted_to_improve) {
  const auto out = diagnose("v5e-64-comm.yaml", "v5e-256-comm");
  const auto& s = out.proposals;
  EXPECT_TRUE(has_note(s, "the current mesh ran, although the model puts it at 17.3 GiB"))
      << s.notes.front();
  EXPECT_FALSE(has_note(s, "does not fit in memory"));
  ASSERT_EQ(s.proposals.size(), 3u);
  for (const auto& p : s.proposals) {
    EXPECT_FALSE(p.exploratory);
    EXPECT_GT(p.predicted.speedup, 1.0) << p.change;
    // The figure shown is the one the screen used: within the limit.
    EXPECT_LE(p.predicted.memory_gib_after, p.predicted.memory_limit_gib) << p.change;
  }
  EXPECT_EQ(s.proposals[0].change, "seq 8->1, model 2->16");
}

TEST(measured_memory, v5p_4x4x8_says_why_none_improves_and_labels_the_exploration) {
  const auto out = diagnose("v5p-256-compute.yaml", "v5p-512-compute");
  const auto& s = out.proposals;
  EXPECT_TRUE(has_note(s, "the current mesh ran, although the model puts it at 96.7 GiB"));
  EXPECT_TRUE(has_note(s, "only 0 of the 6 valid, fitting changes considered are predicted "
                          "faster than the current layout"));
  ASSERT_EQ(s.proposals.size(), 1u);
  const auto& p = s.proposals[0];
  EXPECT_TRUE(p.exploratory);
  EXPECT_LT(p.predicted.speedup, 1.0);
  EXPECT_EQ(p.title.rfind("Exploration, predicted 4% slower: ", 0), 0u) << p.title;
  EXPECT_LE(p.predicted.memory_gib_after, p.predicted.memory_limit_gib);
}

} // namespace
} // namespace paratune
