// MaxText's training log, every form its metric logger printed, read from
// excerpts of MaxText's own pull requests and docs (tests/fixtures/maxtext/
// README.md names each source).

#include <gtest/gtest.h>

#include <string>

#include "adapters/maxtext/absl_prefix.hpp"
#include "adapters/maxtext/training_log_format.hpp"
#include "adapters/maxtext/maxtext_errors.hpp"
#include "adapters/maxtext/maxtext_log_json.hpp"
#include "adapters/maxtext/maxtext_log_parser.hpp"
#include "adapters/maxtext/step_scoring.hpp"
#include "adapters/megatron/megatron_log_parser.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

maxtext_log read_fixture(const std::string& name) {
  return parse_maxtext_log_file(test::source_dir() + "/tests/fixtures/maxtext/" + name);
}

maxtext_log read_text(std::string_view text, std::size_t chunk) {
  maxtext_log_parser p;
  for (std::size_t i = 0; i < text.size(); i += chunk)
    p.feed(text.substr(i, chunk));
  p.finish();
  return p.log();
}

// AI-Hypercomputer/maxtext PR #761 (2024-07): Tokens/s/device added.
TEST(maxtext_log, the_2024_line_with_tokens_per_device) {
  const auto log = read_fixture("pr761_tokens_2024.log");
  ASSERT_EQ(log.steps.size(), 1u);
  const auto& s = log.steps[0];
  EXPECT_EQ(s.step, 9);
  EXPECT_DOUBLE_EQ(*s.seconds, 1.341);
  EXPECT_DOUBLE_EQ(*s.tflops_per_device, 257.929);
  EXPECT_DOUBLE_EQ(*s.tokens_per_s_per_device, 36653.244);
  EXPECT_DOUBLE_EQ(*s.loss, 0.0);
  EXPECT_FALSE(s.total_weights);
  EXPECT_EQ(s.values.size(), 4u);
  // A lone step is its run's first: compilation, not scored.
  EXPECT_EQ(s.phase, step_phase::compile);
}

// PR #2232, docs/guides/understand_logs_and_metrics.md (2025-08): total_weights.
TEST(maxtext_log, the_2025_line_with_total_weights) {
  const auto log = read_fixture("docs_logs_and_metrics_2025.log");
  ASSERT_EQ(log.steps.size(), 1u);
  EXPECT_DOUBLE_EQ(*log.steps[0].total_weights, 196608);
  EXPECT_DOUBLE_EQ(*log.steps[0].loss, 10.374);
  EXPECT_DOUBLE_EQ(*log.steps[0].tflops_per_device, 134.924);
}

// PR #4847 (2026): absl prefixes, lm_loss and perplexity, and step 1 timed
// before the device ran it: 0.631 s at 5688 TFLOP/s/device beside 10.2 s.
TEST(maxtext_log, today_s_line_behind_absl_and_an_async_dispatch_step_not_scored) {
  const auto log = read_fixture("pr4847_async_dispatch_2026.log");
  EXPECT_EQ(log.lines, 6);
  ASSERT_EQ(log.steps.size(), 3u);
  EXPECT_EQ(log.steps[0].step, 1);
  EXPECT_EQ(log.steps[0].line, 2);
  EXPECT_DOUBLE_EQ(*log.steps[0].perplexity, 433358.281);
  EXPECT_DOUBLE_EQ(*log.steps[1].lm_loss, 12.980);
  // Step 1 is this excerpt's first step: compilation. Score it apart, and
  // the dispatch artefact too when it is not first.
  EXPECT_EQ(log.steps[0].phase, step_phase::compile);
  EXPECT_EQ(log.steps[1].phase, step_phase::measured);
  EXPECT_EQ(log.steps[2].phase, step_phase::measured);
  const auto score = score_of(log.steps);
  EXPECT_EQ(score.scored, 2);
  EXPECT_DOUBLE_EQ(score.step_ms, (10228.0 + 10344.0) / 2);
  EXPECT_DOUBLE_EQ(score.tflops_per_device, (350.869 + 346.932) / 2);
  EXPECT_EQ(log.profiler_sessions, 1);
  EXPECT_TRUE(log.errors.empty());
}

TEST(maxtext_log, an_async_dispatch_step_after_compilation_is_not_scored) {
  // PR #4847's three steps behind a compilation step 0.
  auto steps = read_fixture("pr4847_async_dispatch_2026.log").steps;
  maxtext_step compile;
  compile.step = 0;
  compile.seconds = 60.0;
  steps.insert(steps.begin(), compile);
  for (auto& s : steps)
    s.phase = step_phase::measured;
  score_steps(steps);
  EXPECT_EQ(steps[0].phase, step_phase::compile);
  EXPECT_EQ(steps[1].phase, step_phase::async_dispatch);
  EXPECT_EQ(steps[2].phase, step_phase::measured);
  EXPECT_EQ(score_of(steps).scored, 2);
  // Told the device's peak, a step above it is not scored either, even
  // with nothing to compare its time with.
  std::vector<maxtext_step> two(steps.begin(), steps.begin() + 2);
  for (auto& s : two)
    s.phase = step_phase::measured;
  score_steps(two, 918.0);  // v6e's bf16 peak
  EXPECT_EQ(two[1].phase, step_phase::async_dispatch);
}

// The 2023 form (TFLOP/s:) and today's ramp-up, live slice count and
// profiler boundary, rendered from MaxText's format strings.
TEST(maxtext_log, the_2023_form_and_ramp_up_live_slices_and_profiler_boundaries) {
  const auto log = read_fixture("forms_2023_and_2026.log");
  ASSERT_EQ(log.steps.size(), 8u);
  EXPECT_DOUBLE_EQ(*log.steps[1].tflops_per_device, 148.293);
  EXPECT_EQ(log.steps[0].phase, step_phase::compile);
  EXPECT_EQ(log.steps[1].phase, step_phase::measured);
  EXPECT_EQ(log.steps[2].phase, step_phase::measured);
  // The second run: step 0 again.
  EXPECT_TRUE(log.steps[3].rampup);
  EXPECT_EQ(log.steps[3].phase, step_phase::rampup);
  EXPECT_FALSE(log.steps[3].tflops_per_device);
  EXPECT_EQ(log.steps[4].phase, step_phase::rampup);
  EXPECT_EQ(*log.steps[5].live_slices, 2);
  EXPECT_DOUBLE_EQ(*log.steps[5].tokens_per_s_per_device, 5442.910);
  EXPECT_EQ(log.steps[5].phase, step_phase::measured);
  EXPECT_TRUE(log.steps[6].profiler_boundary);
  EXPECT_EQ(log.steps[6].step, 3);
  EXPECT_FALSE(log.steps[6].seconds);
  EXPECT_EQ(log.steps[6].phase, step_phase::profiler_boundary);
  EXPECT_EQ(*log.steps[7].live_slices, 1);
  EXPECT_EQ(score_of(log.steps).scored, 4);
}

TEST(maxtext_log, the_result_does_not_depend_on_the_chunking) {
  const std::string text =
      "I0811 21:55:06.119312 138304841739136 metric_logger.py:226] completed step: 2, seconds: "
      "10.228, TFLOP/s/device: 350.869, Tokens/s/device: 19222.175, total_weights: 1572864, "
      "loss: 12.980, lm_loss: 12.980, perplexity: 433463.719\ncompleted step: 3, seconds: 1.0";
  for (std::size_t chunk : {1u, 7u, 4096u}) {
    const auto log = read_text(text, chunk);
    ASSERT_EQ(log.steps.size(), 2u) << chunk;
    EXPECT_DOUBLE_EQ(*log.steps[0].tokens_per_s_per_device, 19222.175);
    EXPECT_DOUBLE_EQ(*log.steps[1].seconds, 1.0);
  }
}

TEST(maxtext_log, lines_that_only_look_like_a_step_are_not_steps) {
  const auto log = read_text("completed step: x, seconds: 1\ncompleted step: 3abc, seconds: 1\n"
                             "completed step: 4, loss: 2.0\nnot completed step: 1\n",
                             4096);
  EXPECT_TRUE(log.steps.empty());
  EXPECT_FALSE(log.recognised());
}

TEST(absl_prefix, is_removed_only_when_whole) {
  EXPECT_EQ(strip_absl_prefix("I1127 12:00:00.123456 140371 train.py:123] completed step: 1"),
            "completed step: 1");
  EXPECT_EQ(strip_absl_prefix("W0811 21:55:27.378361    4942 gfc_configs.cc:136]  Overriding"),
            " Overriding");
  EXPECT_EQ(strip_absl_prefix("I1127 completed"), "I1127 completed");
  EXPECT_EQ(strip_absl_prefix("Info: 12:00"), "Info: 12:00");
}

// Issue 26's mesh mismatch, as max_utils.py:479 raises it.
TEST(maxtext_errors, the_mesh_mismatch_is_a_configuration_error) {
  const auto log = read_fixture("mesh_mismatch.log");
  ASSERT_EQ(log.errors.size(), 1u);
  EXPECT_EQ(log.errors[0].kind, log_error_kind::config_invalid);
  EXPECT_EQ(log.errors[0].line, 4);
  EXPECT_EQ(log.errors[0].message, "AssertionError: Number of devices per slice 64 does not match "
                                   "the product of the ICI parallelism 16");
}

TEST(maxtext_errors, hbm_exhaustion_is_out_of_memory) {
  const auto log = read_fixture("hbm_oom.log");
  ASSERT_EQ(log.errors.size(), 1u);
  EXPECT_EQ(log.errors[0].kind, log_error_kind::oom);
  EXPECT_EQ(log.errors[0].line, 2);
}

TEST(maxtext_errors, each_class_from_its_own_text) {
  EXPECT_EQ(classify_maxtext_error("RESOURCE_EXHAUSTED: Error allocating device buffer: "
                                   "Attempting to allocate 1.00G. That was not possible."),
            log_error_kind::oom);
  EXPECT_EQ(classify_maxtext_error("Aborting training due to NaN loss."), log_error_kind::nan);
  EXPECT_EQ(classify_maxtext_error("jaxlib.xla_extension.XlaRuntimeError: INTERNAL: XLA:TPU "
                                   "compile permanent error. Mosaic failed to compile."),
            log_error_kind::config_invalid);
  EXPECT_EQ(classify_maxtext_error("ValueError: moe_mlp_dim must be positive for MoE models "
                                   "(num_experts > 1)"),
            log_error_kind::config_invalid);
  EXPECT_EQ(classify_maxtext_error("AssertionError: Remat policy needs to be on list of remat "
                                   "policies"),
            log_error_kind::config_invalid);
  EXPECT_EQ(classify_maxtext_error("To see full metrics 'tensorboard --logdir=gs:"), std::nullopt);
}

TEST(training_log_format, a_maxtext_log_is_told_from_a_megatron_one) {
  megatron_log megatron;
  const auto maxtext = read_fixture("docs_logs_and_metrics_2025.log");
  EXPECT_EQ(detect_training_log_format(megatron, maxtext), training_log_format::maxtext);
  EXPECT_EQ(detect_training_log_format(megatron, maxtext_log{}), training_log_format::unknown);
  // A run that failed before its first step is still MaxText's, though
  // Megatron-LM's reader sees an exception line in it too.
  const std::string path = test::source_dir() + "/tests/fixtures/maxtext/hbm_oom.log";
  const auto megatron_reading = parse_megatron_log_file(path);
  EXPECT_TRUE(megatron_reading.recognised());
  EXPECT_EQ(detect_training_log_format(megatron_reading, read_fixture("hbm_oom.log")),
            training_log_format::maxtext);
  // An iteration line is Megatron-LM's.
  megatron.iterations.emplace_back();
  EXPECT_EQ(detect_training_log_format(megatron, maxtext_log{}), training_log_format::megatron);
}

TEST(maxtext_log_json, iterations_in_megatron_s_shape) {
  const auto j = to_json(read_fixture("pr4847_async_dispatch_2026.log"));
  EXPECT_EQ(j["format"], "maxtext");
  ASSERT_EQ(j["iterations"].size(), 3u);
  EXPECT_EQ(j["iterations"][1]["iteration"], 2);
  EXPECT_DOUBLE_EQ(j["iterations"][1]["elapsed_ms"].get<double>(), 10228.0);
  EXPECT_DOUBLE_EQ(j["iterations"][1]["tflops_per_device"].get<double>(), 350.869);
  EXPECT_DOUBLE_EQ(j["iterations"][1]["tokens_per_s_per_device"].get<double>(), 19222.175);
  EXPECT_EQ(j["iterations"][0]["phase"], "compile");
  EXPECT_EQ(j["iterations"][0]["scored"], false);
  EXPECT_EQ(j["iterations"][1]["values"]["total_weights"], "1572864");
  EXPECT_EQ(j["score"]["scored"], 2);
}

} // namespace
} // namespace paratune
