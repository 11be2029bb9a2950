// The model's turn in the tuning loop, with a scripted model in-process:
// strict parsing, each guardrail by name, the second ask with the reason,
// the fall-back to the built-in choice, and hybrid ranking.

#include "core/llm/llm_decision.hpp"
#include "core/llm/model_answer.hpp"
#include "core/llm/strategy_prompt.hpp"

#include <gtest/gtest.h>

#include "tests/llm/scripted_model.hpp"

namespace paratune {
namespace {

using test::gpt3_7b_on_16_a100;
using test::prompt_file;
using test::says;
using test::scripted_model;

trial_outcome ran(const training_config& c, double tflops, double mem_mib) {
  trial_outcome r;
  r.trial = 1;
  r.config = c;
  r.tflops_per_gpu = tflops;
  r.mfu = tflops / 312;
  r.peak_memory_mib = mem_mib;
  r.memory_limit_mib = 81920;
  return r;
}

trial_outcome oom(const training_config& c) {
  trial_outcome r;
  r.trial = 2;
  r.config = c;
  r.status = trial_status::failed;
  r.failure = failure_kind::oom;
  r.blamed = {"mbs"};
  r.memory_limit_mib = 81920;
  r.reason = "CUDA out of memory";
  return r;
}

struct decision_fixture : ::testing::Test {
  tuning_context ctx = gpt3_7b_on_16_a100();
  training_config first = parse_config("tp=2,pp=1,mbs=2", ctx.initial);
  std::vector<trial_outcome> history{ran(first, 150, 52000)};
  analysis builtin = analyze(ctx, history);
  scripted_model model;

  llm_decision decide(reasoner_mode mode = reasoner_mode::llm) {
    return decide_with_llm(mode,
                           prompt_file(mode == reasoner_mode::hybrid ? "strategy_ranking.md"
                                                                     : "strategy_generation.md"),
                           "gpt3-7b-a100x16", ctx, history, {}, builtin, model.fn());
  }
};

TEST_F(decision_fixture, a_valid_proposal_is_chosen_with_the_models_reason) {
  model.answers = {says(R"({"config": {"tp": "4", "recompute": "selective"}, "reason": "TP 4 )"
                        R"(halves activation memory, so selective recomputation fits."})")};
  const auto d = decide();
  ASSERT_TRUE(d.chosen) << d.fallback;
  EXPECT_EQ(d.chosen->config, parse_config("tp=4,recompute=selective", first));
  EXPECT_EQ(d.chosen->group, candidate_group::llm);
  EXPECT_EQ(d.chosen->text, "Change TP from 2 to 4 and AC from full to selective.");
  EXPECT_EQ(d.chosen->why, "the model: TP 4 halves activation memory, so selective "
                           "recomputation fits.");
  EXPECT_GT(d.chosen->predicted_tflops, 0);
  ASSERT_EQ(d.turns.size(), 1u);
  EXPECT_FALSE(d.turns[0].rejected);
  // The prompt: the template's system part, then the filled user part.
  ASSERT_EQ(model.asked.size(), 1u);
  ASSERT_EQ(model.asked[0].size(), 2u);
  EXPECT_EQ(model.asked[0][0].role, "system");
  const auto& user = model.asked[0][1].content;
  EXPECT_NE(user.find("| 1 | mbs=2 pp=1 recompute=full tp=2 | succeeded | 150.0 | 0.481 | 63% |"),
            std::string::npos) << user;
  EXPECT_NE(user.find("- tp: 1, 2, 4, 8"), std::string::npos) << user;
  EXPECT_EQ(user.find("{{"), std::string::npos) << user;
  auto a = builtin;
  apply_decision(a, reasoner_mode::llm, d);
  EXPECT_EQ(a.selected->config, d.chosen->config);
  EXPECT_EQ(a.ranked.front().group, candidate_group::llm);
}

TEST_F(decision_fixture, each_guardrail_refuses_by_name_and_the_model_is_asked_once_more) {
  struct refused {
    std::string answer;
    guardrail_rejection reason;
    std::string detail;
  };
  const std::vector<refused> cases = {
      {"TP 4 please", guardrail_rejection::unparsable, "the answer is not JSON"},
      {R"({"config": {"tp": "4"}})", guardrail_rejection::unparsable,
       "the answer has no \"reason\" string"},
      {R"({"config": {"zero_stage": "3"}, "reason": "shard"})",
       guardrail_rejection::unknown_parameter, "'zero_stage' is not a configuration key"},
      {R"({"config": {"tp": "3"}, "reason": "odd"})", guardrail_rejection::unknown_value,
       "tp=3 is not among the search space's values 1, 2, 4, 8"},
      {R"({"config": {"seq": "8192"}, "reason": "longer"})", guardrail_rejection::unknown_value,
       "seq is fixed at 4096 for this job, not 8192"},
      {R"({"config": {"tp": "2"}, "reason": "again"})", guardrail_rejection::repeat,
       "duplicate of trial 1"},
  };
  for (const auto& c : cases) {
    model.asked.clear();
    model.answers = {says(c.answer),
                     says(R"({"config": {"pp": "2"}, "reason": "a pipeline frees memory"})")};
    const auto d = decide();
    ASSERT_EQ(d.turns.size(), 2u) << c.answer;
    ASSERT_TRUE(d.turns[0].rejected) << c.answer;
    EXPECT_EQ(d.turns[0].rejected->reason, c.reason) << c.answer;
    EXPECT_NE(d.turns[0].rejected->detail.find(c.detail), std::string::npos)
        << c.answer << " -> " << d.turns[0].rejected->detail;
    ASSERT_TRUE(d.chosen) << c.answer;
    EXPECT_EQ(d.chosen->config.pp, 2);
    // The second ask carries the refusal and its reason.
    ASSERT_EQ(model.asked.size(), 2u);
    ASSERT_EQ(model.asked[1].size(), 4u);
    EXPECT_EQ(model.asked[1][2].content, c.answer);
    EXPECT_NE(model.asked[1][3].content.find(std::string("(") + to_string(c.reason) + ": "),
              std::string::npos);
  }
}

TEST_F(decision_fixture, a_known_failure_a_rule_and_memory_are_refused) {
  // Trial 2 ran out of memory at micro batch 4 with TP 2.
  history.push_back(oom(parse_config("mbs=4", first)));
  builtin = analyze(ctx, history);
  model.answers = {says(R"({"config": {"mbs": "4", "recompute": "none"}, "reason": "bigger"})")};
  auto d = decide();
  ASSERT_EQ(d.turns.size(), 2u);
  EXPECT_EQ(d.turns[0].rejected->reason, guardrail_rejection::known_failure);
  EXPECT_FALSE(d.chosen);
  EXPECT_EQ(d.fallback, "the model's answers were refused twice (known_failure): the built-in "
                        "choice stands");
  // Sequence parallelism needs TP > 1: a Megatron rule.
  model.answers = {says(R"({"config": {"tp": "1", "sp": "true"}, "reason": "sp"})")};
  ctx.search["sp"] = {"false", "true"};
  builtin = analyze(ctx, history);
  d = decide();
  EXPECT_EQ(d.turns[0].rejected->reason, guardrail_rejection::megatron_rule)
      << d.turns[0].rejected->detail;
  // No recomputation and micro batch 4 on one GPU's worth of a 7B model.
  model.answers = {says(R"({"config": {"tp": "1", "mbs": "4", "recompute": "none"}, )"
                        R"("reason": "all compute"})")};
  history.pop_back();
  builtin = analyze(ctx, history);
  d = decide();
  EXPECT_EQ(d.turns[0].rejected->reason, guardrail_rejection::memory) << d.turns[0].rejected->detail;
}

TEST_F(decision_fixture, a_model_that_does_not_answer_leaves_the_builtin_choice) {
  chat_outcome down;
  down.error = "POST http://127.0.0.1:9/v1/chat/completions: HTTP 503";
  model.answers = {down};
  const auto d = decide();
  EXPECT_FALSE(d.chosen);
  ASSERT_EQ(d.turns.size(), 1u);
  EXPECT_EQ(d.fallback, "the model did not answer (POST http://127.0.0.1:9/v1/chat/completions: "
                        "HTTP 503)");
  auto a = builtin;
  apply_decision(a, reasoner_mode::llm, d);
  EXPECT_EQ(a.selected->config, builtin.selected->config);
  EXPECT_NE(a.reasoning.find("Model (llm): the model did not answer"), std::string::npos);
}

TEST_F(decision_fixture, hybrid_ranks_the_builtin_candidates_and_checks_the_ranking) {
  ASSERT_GE(builtin.ranked.size(), 3u);
  model.answers = {says(R"({"ranking": [9, 1], "reason": "x"})"),
                   says(R"({"ranking": [3, 1, 2], "reason": "fewer collectives"})")};
  const auto d = decide(reasoner_mode::hybrid);
  ASSERT_EQ(d.turns.size(), 2u);
  EXPECT_EQ(d.turns[0].rejected->reason, guardrail_rejection::not_a_candidate);
  EXPECT_EQ(d.turns[0].rejected->detail, "candidate 9 was not offered (1 to 5)");
  ASSERT_TRUE(d.chosen);
  EXPECT_EQ(d.chosen->config, builtin.ranked[2].config);
  EXPECT_EQ(d.chosen->group, builtin.ranked[2].group);
  EXPECT_NE(d.chosen->why.find("the model ranked it first: fewer collectives"), std::string::npos);
  const auto& user = model.asked[0][1].content;
  EXPECT_NE(user.find("1. " + builtin.ranked[0].text), std::string::npos) << user;
  EXPECT_NE(user.find("5. " + builtin.ranked[4].text), std::string::npos) << user;
}

TEST(model_answer, reads_numbers_booleans_and_a_fenced_answer) {
  auto ctx = gpt3_7b_on_16_a100();
  ctx.search["sp"] = {"false", "true"};
  const auto r = read_proposed_config("```json\n{\"config\": {\"tp\": 4, \"sp\": true}, "
                                      "\"reason\": \"r\"}\n```",
                                      ctx, ctx.initial);
  ASSERT_TRUE(std::holds_alternative<proposed_config>(r));
  EXPECT_EQ(std::get<proposed_config>(r).config.tp, 4);
  EXPECT_TRUE(std::get<proposed_config>(r).config.sp);
  const auto bad = read_proposed_config(R"({"config": {"tp": 4.5}, "reason": "r"})", ctx,
                                        ctx.initial);
  ASSERT_TRUE(std::holds_alternative<guardrail_verdict>(bad));
  EXPECT_EQ(std::get<guardrail_verdict>(bad).reason, guardrail_rejection::unknown_value);
  const auto twice = read_proposed_ranking(R"({"ranking": [2, 2], "reason": "r"})", 5);
  ASSERT_TRUE(std::holds_alternative<guardrail_verdict>(twice));
  EXPECT_EQ(std::get<guardrail_verdict>(twice).detail, "the ranking names candidate 2 twice");
}

} // namespace
} // namespace paratune
