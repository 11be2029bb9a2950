// paratune's own out-of-memory run on one H100 (data/h100_1gpu/megatron/
// s2048_mbs8_none, 2026-11-27): what the memory screen learns from it in a
// session that also ran the TinyLlama shape's other sequence-2048 runs, and
// what it does not.

#include <deque>

#include <gtest/gtest.h>

#include "core/perf/perf_model.hpp"
#include "core/tuning/memory_screen.hpp"
#include "tests/fixtures/test_paths.hpp"
#include "validation/h100_megatron_table.hpp"
#include "validation/reference_specs.hpp"

namespace paratune {
namespace {

struct h100_oom_session : ::testing::Test {
  void SetUp() override {
    for (const auto& r : read_h100_megatron_runs(test::data_dir())) {
      if (!r.label.starts_with("s2048_"))
        continue;  // one model, one sequence: one session's history
      model = r.launch.model;
      prec = r.launch.prec;
      trial_outcome o;
      o.trial = int(history.size()) + 1;
      o.config = r.launch.config;
      o.memory_limit_mib = predicted(o.config).memory_limit_mib;
      if (!r.out_of_memory.empty()) {
        o.status = trial_status::failed;
        o.failure = failure_kind::oom;
        o.reason = r.out_of_memory;
        oom_trial = o.trial;
      } else {
        o.tflops_per_gpu = 100;  // measured; the screen reads only that it ran
        o.peak_memory_mib = r.peak_allocated_mib;
      }
      history.push_back(o);
    }
  }

  const perf_prediction& predicted(const training_config& c) {
    perf_calibration cal;
    cal.flash_attention = false;  // Megatron-LM's local implementation ran
    keep.push_back(predict(model, reference::dgx_h100(), 1, c, prec, cal));
    return keep.back();
  }

  training_config with(const char* change) { return parse_config(change, history.front().config); }

  model_spec model;
  precision prec = precision::bf16;
  std::vector<trial_outcome> history;
  std::deque<perf_prediction> keep;  // references stay valid as it grows
  int oom_trial = 0;
};

TEST_F(h100_oom_session, the_oom_rules_out_what_needs_as_much_memory_and_nothing_else) {
  ASSERT_EQ(history.size(), 7u);  // mbs 1, 2 (twice: none, full), 4 (three ways), 8
  ASSERT_NE(oom_trial, 0);
  const memory_screen screen(history, [this](const training_config& c) -> const perf_prediction& {
    return predicted(c);
  });
  // The configuration itself, and one that needs more by construction.
  const auto itself = screen.oom_lesson_for(with("mbs=8,recompute=none"));
  ASSERT_TRUE(itself);
  EXPECT_EQ(itself->trial, oom_trial);
  EXPECT_GT(itself->raised_peak_mib, itself->limit_mib);
  const auto larger = screen.oom_lesson_for(with("mbs=16,recompute=none"));
  ASSERT_TRUE(larger);
  EXPECT_EQ(larger->trial, oom_trial);
  // What needs less: more recomputation, a smaller micro-batch, a run that
  // ran. None of them is refused by the OOM.
  for (const char* change : {"mbs=8,recompute=selective", "mbs=8,recompute=full",
                             "mbs=4,recompute=none", "mbs=2,recompute=none"})
    EXPECT_FALSE(screen.oom_lesson_for(with(change))) << change;
  // The model alone called micro-batch 8 tight (worth a run); after the OOM
  // the screen refuses it, citing the trial.
  const auto& p = predicted(with("mbs=8,recompute=none"));
  EXPECT_EQ(p.memory, memory_verdict::tight);
  const auto why = screen.check(with("mbs=8,recompute=none"), p);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("trial " + std::to_string(oom_trial)), std::string::npos) << *why;
}

} // namespace
} // namespace paratune
