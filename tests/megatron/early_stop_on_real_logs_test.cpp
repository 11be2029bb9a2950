// The early stopper fed real Megatron-LM logs line by line, as the validator
// feeds a running trial's output: where it would have ended each run, and
// what that saves.

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "adapters/megatron/megatron_log_parser.hpp"
#include "core/tuning/early_stop.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

struct replay {
  int iterations_logged = 0;      ///< iteration records seen when it stopped (or in all)
  long long stopped_at = 0;       ///< the iteration number it stopped at, 0 if never
  stop_decision decision;
};

// Feeds `log` line by line to a streaming parser; each new iteration record
// goes to the stopper. A file may hold two runs (the iteration numbers start
// again): `second_run` picks which one is replayed.
replay run(const std::string& name, early_stop_policy policy, incumbent_rate incumbent,
           bool second_run = false) {
  std::ifstream in(test::data_dir() + "/megatron_logs/" + name);
  megatron_log_parser parser;
  early_stopper stopper(policy, incumbent);
  replay r;
  std::string line;
  size_t seen = 0;
  long long last = 0;
  bool in_second = false;
  while (std::getline(in, line)) {
    parser.feed(line);
    parser.feed("\n");
    const auto& its = parser.log().iterations;
    for (; seen < its.size(); ++seen) {
      const auto& it = its[seen];
      if (it.iteration < last)
        in_second = true;
      last = it.iteration;
      if (in_second != second_run)
        continue;
      ++r.iterations_logged;
      r.decision = stopper.on_iteration({it.iteration, it.elapsed_ms, it.tflops_per_gpu.value_or(0)});
      if (r.decision) {
        r.stopped_at = it.iteration;
        return r;
      }
    }
  }
  return r;
}

// Megatron-Core r0.8 7B on one node: 100 iterations logged every 10. The
// throughput settles after the first record: five records within 2% end it
// at iteration 60 of 100.
TEST(early_stop_on_real_logs, a_settled_run_stops_as_stable) {
  early_stop_policy p;
  p.warmup = 1; // records, each the mean of 10 iterations
  const auto r = run("mdk_docs_core_r0.8.0_fp16_7B_1node_2node.txt", p, {});
  EXPECT_EQ(r.decision.reason, stop_reason::stable) << r.decision.text;
  EXPECT_EQ(r.stopped_at, 60);
  EXPECT_EQ(r.decision.text, "stable: the last 5 iterations lie within 0.8% of 12069 ms");
}

// The same log's two-node run, with the one-node run (877.5 TFLOP/s/GPU)
// as the incumbent: its first rung (3 scored records, median 801.7) is more
// than 2% short, so it ends at iteration 40.
TEST(early_stop_on_real_logs, a_slower_run_stops_at_its_first_rung) {
  early_stop_policy p;
  p.warmup = 1;
  const auto r = run("mdk_docs_core_r0.8.0_fp16_7B_1node_2node.txt", p, {877.5, 0}, true);
  EXPECT_EQ(r.decision.reason, stop_reason::cannot_beat_incumbent) << r.decision.text;
  EXPECT_EQ(r.stopped_at, 40);
  EXPECT_EQ(r.decision.text, "cannot beat the incumbent: 801.7 TFLOP/s/GPU over 3 iterations, "
                             "the best run has 877.5");
  // Against a weaker incumbent it runs on until stable.
  const auto on = run("mdk_docs_core_r0.8.0_fp16_7B_1node_2node.txt", p, {790.0, 0}, true);
  EXPECT_EQ(on.decision.reason, stop_reason::stable) << on.decision.text;
}

// BigScience's 2021 log prints no TFLOP/s: iteration times decide. The
// first record (2152 ms) is warm-up; 1355..1380 ms is within 2%.
TEST(early_stop_on_real_logs, iteration_times_decide_without_tflops) {
  early_stop_policy p;
  p.warmup = 1;
  const auto r = run("bigscience_gpt2-meg_n4_dp1_tp4_pp4-1809579.txt", p, {});
  EXPECT_EQ(r.decision.reason, stop_reason::stable) << r.decision.text;
  EXPECT_EQ(r.stopped_at, 60);
  const auto beaten = run("bigscience_gpt2-meg_n4_dp1_tp4_pp4-1809579.txt", p, {0, 1200});
  EXPECT_EQ(beaten.decision.reason, stop_reason::cannot_beat_incumbent);
  EXPECT_EQ(beaten.stopped_at, 40);
}

TEST(early_stop, clock_failure_and_policy_switches) {
  early_stop_policy p;
  p.hang_s = 300;
  p.wall_s = 3600;
  early_stopper s(p);
  EXPECT_FALSE(s.on_clock(100, 10));
  EXPECT_EQ(s.on_clock(400, 300).reason, stop_reason::hang);
  EXPECT_EQ(s.on_clock(400, 300).text, "hang: no output for 300 s (limit 300 s)");
  EXPECT_EQ(s.on_clock(3600, 1).reason, stop_reason::wall_clock);
  EXPECT_EQ(s.on_failure("torch.OutOfMemoryError: CUDA out of memory.").reason,
            stop_reason::failure);
  // Warm-up iterations are never scored, however fast.
  p.rung = false;
  p.stable_after = 3;
  early_stopper quiet(p, {0, 1});
  for (int i = 1; i <= 2; ++i)
    EXPECT_FALSE(quiet.on_iteration({i, 1000, 0}));
  EXPECT_EQ(quiet.scored(), 0);
  EXPECT_FALSE(quiet.on_iteration({3, 1000, 0}));
  EXPECT_FALSE(quiet.on_iteration({4, 1300, 0}));  // 30% spread: not yet
  EXPECT_FALSE(quiet.on_iteration({5, 1000, 0}));
  EXPECT_FALSE(quiet.on_iteration({6, 1000, 0}));
  EXPECT_EQ(quiet.on_iteration({7, 1010, 0}).reason, stop_reason::stable);
}

} // namespace
} // namespace paratune
