// The Analyzer's and the Proposal agent's model turns (core/llm/
// diagnosis_decision) in-process on ASAP's v6e-16 scenario, with a model
// that answers from a script: what the guardrails refuse and why, what an
// accepted answer changes, and that the built-in answer stands otherwise.
// The HTTP path, with a real hostile server, is model_diagnose_cli_test.

#include <deque>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "adapters/diagnosis/diagnosis_run.hpp"
#include "adapters/diagnosis/evidence_sources.hpp"
#include "core/llm/diagnosis_decision.hpp"
#include "tests/diagnose/diagnose_support.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

std::string diagnosis_prompt(const char* name) {
  std::ifstream in(test::source_dir() + "/configs/prompts/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Answers in order (the last repeats) and keeps what it was asked.
struct diagnosis_script {
  std::deque<std::string> answers;
  std::vector<std::vector<chat_message>> asked;

  chat_fn fn() {
    return [this](const std::vector<chat_message>& m, const nlohmann::json&) {
      asked.push_back(m);
      chat_outcome o;
      o.ok = true;
      o.content = answers.front();
      if (answers.size() > 1)
        answers.pop_front();
      return o;
    };
  }
};

struct model_diagnosis : ::testing::Test {
  void SetUp() override {
    test::use_source_configs();
    const auto dir = test::asap_dir("v6e-16-hbm");
    exp = test::load_fixture_experiment(dir);
    evidence_request r;
    r.xprof = dir;
    out = run_diagnosis(exp, gather_evidence(r), {}, {});
  }
  proposal_context context() {
    proposal_context ctx;
    ctx.experiment = &exp;
    ctx.report = &out.report;
    ctx.measured_step_ms = out.evidence.kpis.step_time_ms.value_or(0);
    return ctx;
  }
  proposed_mesh mesh(const std::string& ici, const std::string& dcn = "") {
    proposed_mesh m;
    m.ici = parse_mesh(ici);
    if (!dcn.empty())
      m.dcn = parse_mesh(dcn);
    return m;
  }
  experiment_spec exp;
  diagnosis_outcome out;
  diagnosis_script model;
};

TEST_F(model_diagnosis, a_class_the_profile_scores_under_the_floor_is_refused_with_the_scores) {
  ASSERT_EQ(out.report.bottleneck, bottleneck_class::hbm_bandwidth);
  EXPECT_FALSE(check_bottleneck(out.report, bottleneck_class::hbm_bandwidth));
  const auto bad = check_bottleneck(out.report, bottleneck_class::communication);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->reason, guardrail_rejection::contradicts_measurement);
  EXPECT_EQ(bad->detail.rfind("the profile's numbers give communication a score of ", 0), 0u)
    << bad->detail;
  EXPECT_NE(bad->detail.find("below the 0.25 a bottleneck needs (scores: hbm_bandwidth "),
            std::string::npos)
    << bad->detail;
  const auto unknown = check_bottleneck(out.report, bottleneck_class::unknown);
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->detail.rfind("the profile does say what limits the step: hbm_bandwidth "
                                  "scores ", 0),
            0u)
    << unknown->detail;
}

TEST_F(model_diagnosis, the_analyzer_takes_a_reading_the_numbers_allow_at_no_more_confidence) {
  model.answers = {R"({"bottleneck": "hbm_bandwidth", "confidence": 60, "reason": "fusions )"
                   R"(stream at HBM speed and the all-reduce reads HBM at 23%"})"};
  const auto d = read_profile_with_llm(reasoner_mode::llm,
                                       diagnosis_prompt("diagnosis_analyzer.md"), exp, out.report,
                                       model.fn());
  ASSERT_EQ(model.asked.size(), 1u);
  const auto& user = model.asked[0][1].content;
  EXPECT_NE(user.find("| all-reduce.12 |"), std::string::npos) << user;
  EXPECT_NE(user.find("paratune's Analyzer says: hbm_bandwidth (confidence 88%)"),
            std::string::npos)
    << user;
  EXPECT_TRUE(d.from_model);
  EXPECT_TRUE(d.fallback.empty());
  EXPECT_EQ(d.report.bottleneck, bottleneck_class::hbm_bandwidth);
  EXPECT_DOUBLE_EQ(d.report.confidence, 0.6);
  EXPECT_EQ(d.report.summary.rfind("The model's reading: hbm_bandwidth: fusions stream at HBM "
                                   "speed and the all-reduce reads HBM at 23% (Confidence: 60;",
                                   0),
            0u)
    << d.report.summary;
}

TEST_F(model_diagnosis, two_contradicting_readings_leave_the_built_in_one_and_say_why) {
  model.answers = {R"({"bottleneck": "communication", "confidence": 90, "reason": "all-reduce )"
                   R"(is the longest op"})",
                   R"({"bottleneck": "compute-ish", "confidence": 90, "reason": "x"})"};
  const auto d = read_profile_with_llm(reasoner_mode::llm,
                                       diagnosis_prompt("diagnosis_analyzer.md"), exp, out.report,
                                       model.fn());
  ASSERT_EQ(d.turns.size(), 2u);
  ASSERT_TRUE(d.turns[0].rejected);
  EXPECT_EQ(d.turns[0].rejected->reason, guardrail_rejection::contradicts_measurement);
  ASSERT_TRUE(d.turns[1].rejected);
  EXPECT_EQ(d.turns[1].rejected->reason, guardrail_rejection::unknown_value);
  EXPECT_EQ(d.turns[1].rejected->detail,
            "bottleneck 'compute-ish' is not one of compute, hbm_bandwidth, memory_capacity, "
            "communication, pipeline_bubble, input_host, unknown");
  // The second ask carries the first refusal in words.
  EXPECT_NE(model.asked[1].back().content.find("paratune refused that answer "
                                               "(contradicts_measurement: the profile's numbers "
                                               "give communication a score of "),
            std::string::npos);
  EXPECT_FALSE(d.from_model);
  EXPECT_EQ(d.fallback, "the model's answers were refused twice (unknown_value)");
  EXPECT_EQ(d.report.bottleneck, bottleneck_class::hbm_bandwidth);
  EXPECT_DOUBLE_EQ(d.report.confidence, out.report.confidence);
  EXPECT_NE(d.report.summary.find(" Model: the model's answers were refused twice "
                                  "(unknown_value); the built-in reading stands."),
            std::string::npos);
}

TEST_F(model_diagnosis, a_mesh_is_checked_for_maxtext_the_slice_the_experiment_and_repeats) {
  const double correction = 1;
  auto bad = check_mesh(exp, mesh("data=8,model=4"), correction);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->reason, guardrail_rejection::maxtext_rule);
  EXPECT_EQ(bad->detail, "MaxText refuses it (ici_product): AssertionError: Number of devices per "
                         "slice 16 does not match the product of the ICI parallelism 32");
  bad = check_mesh(exp, mesh("data=4,model=4", "data=2"), correction);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->reason, guardrail_rejection::mesh_size);
  EXPECT_EQ(bad->detail, "dcn_mesh data=2 spans 2 slices; the job has 1");
  bad = check_mesh(exp, mesh("replica=1,data=4,model=1,seq=4"), correction);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->reason, guardrail_rejection::repeat);
  bad = check_mesh(exp, mesh("data=16"), correction);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->reason, guardrail_rejection::unknown_value);
  EXPECT_EQ(bad->detail.rfind("mesh data=16 cannot run this experiment: ", 0), 0u)
    << bad->detail;
  EXPECT_FALSE(check_mesh(exp, mesh("data=2,model=2,seq=4"), correction));
}

TEST_F(model_diagnosis, an_accepted_mesh_goes_first_predicted_and_the_built_in_ones_follow) {
  model.answers = {R"({"mesh": {"data": 2, "model": 8}, "reason": "shard the weights over )"
                   R"(tensor parallelism so no chip gathers them whole"})"};
  auto ctx = context();
  const auto d = propose_with_llm(reasoner_mode::llm, diagnosis_prompt("diagnosis_proposal.md"),
                                  ctx, out.proposals, model.fn());
  ASSERT_EQ(model.asked.size(), 1u);
  EXPECT_NE(model.asked[0][1].content.find("Current mesh: replica=1,data=4,seq=4,model=1"),
            std::string::npos)
    << model.asked[0][1].content;
  ASSERT_TRUE(d.from_model);
  ASSERT_EQ(d.set.proposals.size(), 3u);
  const auto& first = d.set.proposals[0];
  ASSERT_TRUE(first.mesh);
  EXPECT_EQ(*first.mesh, parse_mesh("data=2,model=8"));
  EXPECT_EQ(first.rank, 1);
  EXPECT_NE(first.title.find("The model's proposal: "), std::string::npos) << first.title;
  EXPECT_EQ(first.rationale.rfind("The model: shard the weights over tensor parallelism so no "
                                  "chip gathers them whole ", 0),
            0u)
    << first.rationale;
  // Cited and weighed as the built-in ones are.
  EXPECT_FALSE(first.tradeoffs.empty());
  EXPECT_GT(first.predicted.step_ms_after, 0);
  EXPECT_LE(first.confidence, out.proposals.proposals[0].confidence);
  EXPECT_EQ(*d.set.proposals[1].mesh, *out.proposals.proposals[0].mesh);
  EXPECT_EQ(d.set.notes.back(), "Model: proposed replica=1,data=2,seq=1,model=8 (accepted: the "
                                "slice's chips, MaxText's rules, the experiment's limits and "
                                "memory checked); it goes first.");
}

TEST_F(model_diagnosis, refused_meshes_leave_the_built_in_proposals_as_they_were) {
  model.answers = {R"({"mesh": {"data": 8, "model": 4}, "reason": "more data parallelism"})",
                   R"({"mesh": {"tensor": 4, "data": 4}, "dcn_mesh": {"data": 2}, )"
                   R"("reason": "two slices"})"};
  auto ctx = context();
  const auto d = propose_with_llm(reasoner_mode::llm, diagnosis_prompt("diagnosis_proposal.md"),
                                  ctx, out.proposals, model.fn());
  ASSERT_EQ(d.turns.size(), 2u);
  EXPECT_EQ(d.turns[0].rejected->reason, guardrail_rejection::maxtext_rule);
  EXPECT_EQ(d.turns[1].rejected->reason, guardrail_rejection::mesh_size);
  EXPECT_FALSE(d.from_model);
  ASSERT_EQ(d.set.proposals.size(), out.proposals.proposals.size());
  for (size_t i = 0; i < d.set.proposals.size(); ++i)
    EXPECT_EQ(*d.set.proposals[i].mesh, *out.proposals.proposals[i].mesh);
  EXPECT_EQ(d.set.notes.back(), "Model: the model's answers were refused twice (mesh_size); the "
                                "built-in proposals stand.");
}

TEST_F(model_diagnosis, answers_that_are_not_a_mesh_are_unparsable_or_name_the_bad_axis) {
  auto r = read_proposed_mesh("data=8 please");
  ASSERT_TRUE(std::holds_alternative<guardrail_verdict>(r));
  EXPECT_EQ(std::get<guardrail_verdict>(r).reason, guardrail_rejection::unparsable);
  r = read_proposed_mesh(R"({"mesh": {"stage": 2, "data": 8}, "reason": "pipeline"})");
  ASSERT_TRUE(std::holds_alternative<guardrail_verdict>(r));
  EXPECT_EQ(std::get<guardrail_verdict>(r).reason, guardrail_rejection::unknown_parameter);
  EXPECT_EQ(std::get<guardrail_verdict>(r).detail,
            "'stage' is not a mesh axis (replica, data, fsdp, seq, expert, model)");
  r = read_proposed_mesh(R"j({"mesh": {"data": "$(rm -rf /)"}, "reason": "x"})j");
  ASSERT_TRUE(std::holds_alternative<guardrail_verdict>(r));
  EXPECT_EQ(std::get<guardrail_verdict>(r).reason, guardrail_rejection::unknown_value);
  EXPECT_EQ(std::get<guardrail_verdict>(r).detail,
            "data: \"$(rm -rf /)\" is not a whole number from 1 to 1048576");
}

TEST_F(model_diagnosis, under_builtin_nothing_is_asked) {
  auto ctx = context();
  const auto a = read_profile_with_llm(reasoner_mode::builtin, "", exp, out.report, model.fn());
  const auto p = propose_with_llm(reasoner_mode::builtin, "", ctx, out.proposals, model.fn());
  EXPECT_TRUE(model.asked.empty());
  EXPECT_FALSE(a.from_model);
  EXPECT_FALSE(p.from_model);
  EXPECT_EQ(a.report.summary, out.report.summary);
}

} // namespace
} // namespace paratune
