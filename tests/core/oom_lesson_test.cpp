#include <deque>

#include "core/perf/perf_model.hpp"
#include "core/tuning/memory_order.hpp"
#include "core/tuning/safety_guards.hpp"
#include "tests/core/gpt3_on_16.hpp"

#include <gtest/gtest.h>

namespace paratune {
namespace {

/// GPT3-7B on 16 A100s (OptiCo's appendix D), a space of 3 x 3 x 3 x 3.
tuning_context gpt3_on_16() {
  return test::gpt3_7b_on_16("tp=2,pp=2,mbs=2,gbs=1024,seq=4096,recompute=selective",
                             {{"tp", {"1", "2", "4"}}, {"pp", {"1", "2", "4"}},
                              {"mbs", {"1", "2", "4"}}, {"recompute", {"none", "selective", "full"}}});
}

trial_outcome outcome(const tuning_context& ctx, const char* change, trial_status status) {
  trial_outcome o;
  o.config = parse_config(change, ctx.initial);
  o.status = status;
  o.memory_limit_mib = 81920;
  if (status == trial_status::failed)
    o.failure = failure_kind::oom;
  else
    o.tflops_per_gpu = 150;
  return o;
}

std::vector<training_config> space_of(const tuning_context& ctx) {
  std::vector<training_config> out;
  for (const char* tp : {"1", "2", "4"})
    for (const char* pp : {"1", "2", "4"})
      for (const char* mbs : {"1", "2", "4"})
        for (const char* rc : {"none", "selective", "full"}) {
          auto c = ctx.initial;
          set_value(c, "tp", tp);
          set_value(c, "pp", pp);
          set_value(c, "mbs", mbs);
          set_value(c, "recompute", rc);
          out.push_back(c);
        }
  return out;
}

/// The configurations of the space whose known_failure cites an OOM.
std::vector<training_config> refused_by_oom(const tuning_context& ctx,
                                            const std::vector<trial_outcome>& history) {
  std::deque<perf_prediction> keep;  // references stay valid as it grows
  const auto predictor = [&](const training_config& c) -> const perf_prediction& {
    keep.push_back(predict(ctx.model, ctx.cluster, ctx.world_size, c, ctx.prec));
    return keep.back();
  };
  const safety_guards guards(ctx, history, predictor);
  std::vector<training_config> out;
  for (const auto& c : space_of(ctx))
    if (const auto why = guards.known_failure(c); why && why->find("ran out of memory") != std::string::npos)
      out.push_back(c);
  return out;
}

TEST(memory_order, the_same_or_larger_micro_batch_less_recompute_and_smaller_degrees) {
  const auto failed = parse_config("tp=2,pp=2,mbs=2,gbs=1024,seq=4096,recompute=selective");
  const auto with = [&](const char* change) { return parse_config(change, failed); };
  EXPECT_TRUE(needs_at_least_as_much_memory(failed, failed));
  EXPECT_TRUE(needs_at_least_as_much_memory(with("mbs=4"), failed));
  EXPECT_TRUE(needs_at_least_as_much_memory(with("recompute=none"), failed));
  EXPECT_TRUE(needs_at_least_as_much_memory(with("tp=1"), failed));
  EXPECT_TRUE(needs_at_least_as_much_memory(with("pp=1"), failed));
  EXPECT_TRUE(needs_at_least_as_much_memory(with("tp=1,pp=1,mbs=8,recompute=none"), failed));
  EXPECT_TRUE(needs_at_least_as_much_memory(with("overlap_grad=true"), failed));
  EXPECT_FALSE(needs_at_least_as_much_memory(with("mbs=1"), failed));
  EXPECT_FALSE(needs_at_least_as_much_memory(with("recompute=full"), failed));
  EXPECT_FALSE(needs_at_least_as_much_memory(with("tp=4"), failed));
  EXPECT_FALSE(needs_at_least_as_much_memory(with("pp=4"), failed));
  EXPECT_FALSE(needs_at_least_as_much_memory(with("tp=1,mbs=1"), failed));
  EXPECT_FALSE(needs_at_least_as_much_memory(with("sp=true"), failed));
  EXPECT_FALSE(needs_at_least_as_much_memory(with("dist_opt=true"), failed));
  EXPECT_FALSE(needs_at_least_as_much_memory(with("fused_ce=true"), failed));
  EXPECT_FALSE(needs_at_least_as_much_memory(with("ep=2"), failed));
  EXPECT_FALSE(needs_at_least_as_much_memory(with("vpp=2"), failed));
  // A single stage has no uneven split to compare.
  EXPECT_TRUE(needs_at_least_as_much_memory(with("pp=1"), with("first_pp_layers=4")));
  EXPECT_FALSE(needs_at_least_as_much_memory(failed, with("first_pp_layers=4")));
}

TEST(oom_lesson, an_oom_rules_out_the_configurations_it_implies_and_no_others) {
  const auto ctx = gpt3_on_16();
  const std::vector<trial_outcome> history{
    outcome(ctx, "tp=4,pp=2,mbs=1,recompute=full", trial_status::succeeded),
    outcome(ctx, "tp=2,pp=2,mbs=2,recompute=selective", trial_status::failed)};
  const auto refused = refused_by_oom(ctx, history);
  // TP 1 or 2, PP 1 or 2, MBS 2 or 4, recompute none or selective: 16 of 81.
  EXPECT_EQ(refused.size(), 16u);
  for (const auto& c : refused) {
    EXPECT_LE(c.tp, 2);
    EXPECT_LE(c.pp, 2);
    EXPECT_GE(c.mbs, 2);
    EXPECT_NE(c.recompute, recompute_mode::full);
  }
}

TEST(oom_lesson, a_success_needing_as_much_memory_is_new_evidence) {
  const auto ctx = gpt3_on_16();
  std::vector<trial_outcome> history{
    outcome(ctx, "tp=2,pp=2,mbs=2,recompute=selective", trial_status::failed),
    outcome(ctx, "tp=2,pp=2,mbs=4,recompute=selective", trial_status::succeeded)};
  // TP 2 / PP 2 / selective at MBS 2 and 4 fit after all: 14 stay refused.
  EXPECT_EQ(refused_by_oom(ctx, history).size(), 14u);
  // The hungriest configuration ran: the OOM rules out nothing more.
  history.push_back(outcome(ctx, "tp=1,pp=1,mbs=4,recompute=none", trial_status::succeeded));
  EXPECT_EQ(refused_by_oom(ctx, history).size(), 0u);
}

TEST(oom_lesson, raises_the_estimate_past_the_device_and_says_so) {
  const auto ctx = gpt3_on_16();
  std::deque<perf_prediction> keep;
  const auto predictor = [&](const training_config& c) -> const perf_prediction& {
    keep.push_back(predict(ctx.model, ctx.cluster, ctx.world_size, c, ctx.prec));
    return keep.back();
  };
  std::vector<trial_outcome> history{
    outcome(ctx, "tp=2,pp=2,mbs=2,recompute=selective", trial_status::failed)};
  history[0].trial = 5;
  const memory_screen screen(history, predictor);
  const auto mbs4 = parse_config("mbs=4", history[0].config);
  const auto p = predict(ctx.model, ctx.cluster, ctx.world_size, mbs4, ctx.prec);
  const auto failed = predict(ctx.model, ctx.cluster, ctx.world_size, history[0].config, ctx.prec);
  const auto lesson = screen.oom_lesson_for(mbs4);
  ASSERT_TRUE(lesson);
  EXPECT_EQ(lesson->trial, 5);
  EXPECT_DOUBLE_EQ(lesson->limit_mib, 81920);
  EXPECT_DOUBLE_EQ(lesson->raised_peak_mib,
                   std::max(p.peak_memory_mib + std::max(0.0, 81920 - failed.peak_memory_mib),
                            81921.0));
  EXPECT_GT(screen.corrected_peak(mbs4, p).first, 81920);
  EXPECT_EQ(lesson->text.rfind("known failure: trial 5 ran out of memory at TP 2, PP 2, CP 1, "
                               "MBS 2, recompute selective", 0), 0u) << lesson->text;
  ASSERT_TRUE(screen.check(mbs4, p));
  EXPECT_EQ(*screen.check(mbs4, p), lesson->text);
  EXPECT_FALSE(screen.oom_lesson_for(parse_config("mbs=1", history[0].config)));
}

} // namespace
} // namespace paratune
