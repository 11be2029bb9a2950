// Bottleneck analysis with a model behind it (core/llm/health_decision),
// with a scripted model in-process: the model reads the health of the run
// the reasoner moves from, and a reading that run's numbers rule out is
// refused by name; an accepted one drives analyze() as the built-in
// reading would.

#include "core/llm/health_decision.hpp"

#include <gtest/gtest.h>

#include "tests/llm/scripted_model.hpp"

namespace paratune {
namespace {

using test::prompt_file;
using test::says;

struct health_fixture : ::testing::Test {
  tuning_context ctx = test::gpt3_7b_on_16_a100();
  test::scripted_model model;

  /// A pipelined run at MFU 0.31, memory 96% of 80 GiB: both HIGH_PP_OVERHEAD
  /// and MEMORY_BOUND hold; the built-in order reads HIGH_PP_OVERHEAD.
  std::vector<trial_outcome> history() {
    trial_outcome r;
    r.trial = 1;
    r.config = parse_config("pp=2", ctx.initial);
    r.tflops_per_gpu = 97;
    r.mfu = 0.31;
    r.peak_memory_mib = 78643;
    r.memory_limit_mib = 81920;
    return {r};
  }

  health_decision ask() {
    const auto h = history();
    return read_health_with_llm(prompt_file("bottleneck_analysis.md"), "gpt3-7b-a100x16", ctx, h,
                                analyze(ctx, h), model.fn());
  }
};

TEST_F(health_fixture, the_numbers_decide_which_states_a_model_may_name) {
  const auto run = history()[0];
  EXPECT_FALSE(check_health(run, health_state::high_pp_overhead));
  EXPECT_FALSE(check_health(run, health_state::memory_bound));
  EXPECT_FALSE(check_health(run, health_state::performance_tune));
  const auto bad = check_health(run, health_state::severely_underutilized);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->reason, guardrail_rejection::contradicts_measurement);
  EXPECT_EQ(bad->detail, "SEVERELY_UNDERUTILIZED needs a measured GPU busy share under 50% and "
                         "memory under 70%; trial measured MFU 0.310, GPU busy unknown, peak "
                         "memory 78643 MiB (96.0% of 81920 MiB), PP 2");
}

TEST_F(health_fixture, an_accepted_reading_replaces_the_built_in_one_and_drives_the_analysis) {
  model.answers = {says(R"({"health": "MEMORY_BOUND", "reason": "96% of the device is used; )"
                        R"(the bubble matters less than the next OOM"})")};
  const auto d = ask();
  ASSERT_EQ(model.asked.size(), 1u);
  const auto& user = model.asked[0][1].content;
  EXPECT_NE(user.find("Its numbers: MFU 0.310, GPU busy unknown, peak memory 78643 MiB (96.0% "
                      "of 81920 MiB), PP 2"),
            std::string::npos)
    << user;
  EXPECT_NE(user.find("paratune's reading: HIGH_PP_OVERHEAD (directive REDUCE_PIPELINE_DEPTH)"),
            std::string::npos)
    << user;
  ASSERT_TRUE(d.health);
  EXPECT_EQ(d.health->state, health_state::memory_bound);
  EXPECT_NE(d.health->reasoning.find("the model's reading: 96% of the device is used; the bubble "
                                     "matters less than the next OOM (checked against the run's "
                                     "numbers; built-in: HIGH_PP_OVERHEAD)"),
            std::string::npos)
    << d.health->reasoning;
  const auto h = history();
  const auto a = analyze(ctx, h, {}, nullptr, &*d.health);
  EXPECT_EQ(a.health.state, health_state::memory_bound);
  EXPECT_NE(a.reasoning.find("Health: MEMORY_BOUND (directive RESOLVE_MEMORY_PRESSURE)"),
            std::string::npos)
    << a.reasoning;
}

TEST_F(health_fixture, readings_the_run_rules_out_are_refused_then_the_built_in_stands) {
  model.answers = {says(R"({"health": "SEVERELY_UNDERUTILIZED", "reason": "idle GPUs"})"),
                   says(R"({"health": "BUBBLY", "reason": "pipeline"})")};
  const auto d = ask();
  ASSERT_EQ(d.turns.size(), 2u);
  EXPECT_EQ(d.turns[0].rejected->reason, guardrail_rejection::contradicts_measurement);
  EXPECT_EQ(d.turns[1].rejected->reason, guardrail_rejection::unknown_value);
  EXPECT_EQ(d.turns[1].rejected->detail, "health 'BUBBLY' is not one of SEVERELY_UNDERUTILIZED, "
                                         "HIGH_PP_OVERHEAD, MEMORY_BOUND, PERFORMANCE_TUNE");
  EXPECT_FALSE(d.health);
  EXPECT_EQ(d.fallback, "the model's answers were refused twice (unknown_value)");
}

TEST_F(health_fixture, without_a_run_that_trained_the_model_is_not_asked) {
  const std::vector<trial_outcome> none;
  const auto d = read_health_with_llm(prompt_file("bottleneck_analysis.md"), "gpt3-7b-a100x16",
                                      ctx, none, analyze(ctx, none), model.fn());
  EXPECT_TRUE(model.asked.empty());
  EXPECT_FALSE(d.health);
  EXPECT_TRUE(d.fallback.empty());
}

} // namespace
} // namespace paratune
