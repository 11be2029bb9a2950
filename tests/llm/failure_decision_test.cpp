// Failure analysis with a model behind it, with a scripted model
// in-process: the rules keep what the log names, the model reads what they
// cannot, and its reading passes the guardrails or is refused by name.

#include "core/llm/failure_decision.hpp"

#include <gtest/gtest.h>

#include "tests/llm/scripted_model.hpp"

namespace paratune {
namespace {

using test::prompt_file;
using test::says;

struct failure_fixture : ::testing::Test {
  tuning_context ctx = test::gpt3_7b_on_16_a100();
  test::scripted_model model;
  failed_trial failed{3, parse_config("tp=2,pp=2,mbs=2", ctx.initial), failure_kind::none,
                      "", 1, 0, {"iteration 1/ 20 | elapsed time per iteration (ms): 9000.1",
                                 "terminate called after throwing an instance of "
                                 "'c10::Error' what(): CUDA error: an illegal memory access"}};

  failure_decision analyse(reasoner_mode mode = reasoner_mode::llm) {
    return analyse_failure_with_llm(mode, prompt_file("failure_analysis.md"),
                                    "gpt3-7b-a100x16", ctx, {}, failed, model.fn());
  }
};

TEST_F(failure_fixture, a_failure_the_log_names_is_the_rules_and_the_model_is_not_asked) {
  failed.error_kind = failure_kind::oom;
  failed.message = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB";
  const auto d = analyse();
  EXPECT_TRUE(model.asked.empty());
  EXPECT_TRUE(d.turns.empty());
  EXPECT_FALSE(d.from_model);
  EXPECT_EQ(d.verdict.kind, failure_kind::oom);
  EXPECT_EQ(d.verdict.confidence, 92);
  EXPECT_EQ(d.verdict.blamed, (std::vector<std::string>{"mbs", "recompute"}));
}

TEST_F(failure_fixture, where_the_rules_run_out_an_accepted_reading_becomes_the_verdict) {
  model.answers = {says(R"({"kind": "other", "blamed": ["pp"], "confidence": 70, "reason": )"
                        R"("The illegal memory access follows the pipeline's send/recv of )"
                        R"(stage 2; PP 2 with this build is the likely cause."})")};
  const auto d = analyse();
  ASSERT_EQ(model.asked.size(), 1u);
  const auto& user = model.asked[0][1].content;
  EXPECT_NE(user.find("Failed trial 3: mbs=2 pp=2 recompute=full tp=2"), std::string::npos)
    << user;
  EXPECT_NE(user.find("an illegal memory access"), std::string::npos);
  EXPECT_NE(user.find("It trained 0 iterations; exit status 1."), std::string::npos);
  EXPECT_NE(user.find("other: Exit status 1. Unknown error (Confidence: 10)"), std::string::npos);
  ASSERT_TRUE(d.from_model);
  EXPECT_EQ(d.verdict.kind, failure_kind::other);
  EXPECT_EQ(d.verdict.blamed, std::vector<std::string>{"pp"});
  EXPECT_EQ(d.verdict.confidence, 70);
  EXPECT_FALSE(d.verdict.retry);  // a parameter was blamed: running it again teaches nothing
  EXPECT_EQ(d.verdict.summary,
            "The illegal memory access follows the pipeline's send/recv of stage 2; PP 2 with "
            "this build is the likely cause. (Confidence: 70; the model's reading)");
}

TEST_F(failure_fixture, a_reading_that_blames_no_parameter_is_retried) {
  model.answers = {says(R"({"kind": "node_failure", "blamed": [], "confidence": 60, )"
                        R"("reason": "An Xid error on one GPU; the node, not the job."})")};
  const auto d = analyse();
  ASSERT_TRUE(d.from_model);
  EXPECT_EQ(d.verdict.kind, failure_kind::node_failure);
  EXPECT_TRUE(d.verdict.retry);
}

TEST_F(failure_fixture, a_reading_the_trials_measurements_rule_out_is_refused_then_asked_again) {
  failed.iterations_logged = 6;
  model.answers = {
    says(R"({"kind": "config_invalid", "blamed": ["tp"], "confidence": 80, "reason": "TP 2."})"),
    says(R"({"kind": "other", "blamed": [], "confidence": 30, "reason": "Unclear."})")};
  const auto d = analyse();
  ASSERT_EQ(d.turns.size(), 2u);
  ASSERT_TRUE(d.turns[0].rejected);
  EXPECT_EQ(d.turns[0].rejected->reason, guardrail_rejection::contradicts_measurement);
  EXPECT_EQ(d.turns[0].rejected->detail,
            "trial 3 trained 6 iterations before it failed: a start-up assertion "
            "(config_invalid) cannot be the cause");
  // The second ask carries the refusal back to the model.
  EXPECT_NE(model.asked[1].back().content.find("paratune refused that answer "
                                               "(contradicts_measurement: trial 3 trained 6"),
            std::string::npos);
  ASSERT_TRUE(d.from_model);
  EXPECT_EQ(d.verdict.confidence, 30);
  EXPECT_TRUE(d.verdict.retry);  // too unsure to learn from
}

TEST_F(failure_fixture, invented_keys_kinds_and_confidences_are_refused_by_name) {
  const auto refusal_of = [&](const std::string& answer) {
    model.answers = {says(answer)};
    model.asked.clear();
    const auto d = analyse();
    EXPECT_FALSE(d.from_model);
    EXPECT_EQ(d.verdict.kind, failure_kind::other);  // the rules' verdict stands
    EXPECT_EQ(d.turns.size(), 2u);
    return d.turns.empty() || !d.turns[0].rejected ? std::string("accepted")
                                                   : std::string(to_string(d.turns[0].rejected->reason))
                                                       + ": " + d.turns[0].rejected->detail;
  };
  EXPECT_EQ(refusal_of(R"({"kind": "other", "blamed": ["zero_stage"], "confidence": 70, "reason": "x"})"),
            "unknown_parameter: 'zero_stage' is not a configuration key");
  EXPECT_EQ(refusal_of(R"({"kind": "gpu_melted", "blamed": [], "confidence": 70, "reason": "x"})"),
            "unknown_value: kind 'gpu_melted' is not one of oom, config_invalid, nccl_timeout, "
            "node_failure, launcher_error, nan, other");
  EXPECT_EQ(refusal_of(R"({"kind": "none", "blamed": [], "confidence": 70, "reason": "x"})"),
            "unknown_value: kind 'none' is not one of oom, config_invalid, nccl_timeout, "
            "node_failure, launcher_error, nan, other");
  EXPECT_EQ(refusal_of(R"({"kind": "oom", "blamed": ["mbs"], "confidence": 140, "reason": "x"})"),
            "unknown_value: confidence must be a whole number from 0 to 100");
  EXPECT_EQ(refusal_of(R"({"kind": "oom", "confidence": 40, "reason": "x"})"),
            "unparsable: the answer has no \"blamed\" list");
  EXPECT_EQ(refusal_of("The GPU ran out of memory."), "unparsable: the answer is not JSON");
}

TEST_F(failure_fixture, hybrid_keeps_the_rules_verdict_and_adds_the_models_reading) {
  model.answers = {says(R"({"kind": "node_failure", "blamed": [], "confidence": 65, )"
                        R"("reason": "An Xid 79: the GPU fell off the bus."})")};
  const auto d = analyse(reasoner_mode::hybrid);
  EXPECT_FALSE(d.from_model);
  EXPECT_EQ(d.verdict.kind, failure_kind::other);
  EXPECT_EQ(d.verdict.confidence, 10);
  EXPECT_EQ(d.verdict.summary,
            "Exit status 1. Unknown error (Confidence: 10) The model's reading: node_failure: An "
            "Xid 79: the GPU fell off the bus. (Confidence: 65).");
}

TEST_F(failure_fixture, a_model_that_does_not_answer_leaves_the_rules_and_says_so) {
  chat_outcome down;
  down.error = "unreachable: POST http://127.0.0.1:9/v1/chat/completions: connection refused";
  model.answers = {down};
  const auto d = analyse();
  EXPECT_FALSE(d.from_model);
  EXPECT_EQ(d.turns.size(), 1u);
  EXPECT_EQ(d.verdict.summary,
            "Exit status 1. Unknown error (Confidence: 10) Model: the model did not answer "
            "(unreachable: POST http://127.0.0.1:9/v1/chat/completions: connection refused); "
            "the rules stand.");
}

TEST_F(failure_fixture, the_builtin_mode_never_asks) {
  const auto d = analyse(reasoner_mode::builtin);
  EXPECT_TRUE(model.asked.empty());
  EXPECT_EQ(d.verdict.kind, failure_kind::other);
}

} // namespace
} // namespace paratune
