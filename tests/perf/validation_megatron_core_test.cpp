// Megatron-Core r0.8 weak scaling on H100 (README model table): GPT with
// vocab 131072, seq 4096, DP 48, distributed optimizer with grad/param
// overlap and TP comm overlap. Micro-batch and recompute are not stated:
// we assume micro-batch 1, no recompute, sequence parallel with TP, and no
// interleaving.

#include <gtest/gtest.h>

#include <cstdio>

#include "core/perf/perf_model.hpp"
#include "tests/fixtures/test_paths.hpp"
#include "tests/perf/csv_table.hpp"
#include "tests/perf/perf_specs.hpp"

namespace paratune {
namespace {

TEST(perf_validation, megatron_core_r080_h100_mfu_within_10pct_mape) {
  const auto rows = test::read_csv(test::shared_dir()
                                   + "/corpus/perf/megatron_core_r080_h100_weak_scaling.csv");
  ASSERT_EQ(rows.size(), 9u);
  perf_calibration cal;
  cal.tp_comm_overlap = true;
  std::vector<double> predicted, measured;
  for (const auto& r : rows) {
    const model_spec m = test::gpt(r.integer("num_layers"), r.integer("hidden_size"),
                                   r.integer("attention_heads"), r.integer("vocab"));
    training_config c;
    c.tp = r.integer("tp");
    c.pp = r.integer("pp");
    c.mbs = 1;
    c.gbs = r.integer("global_batch");
    c.seq = r.integer("seq_len");
    c.sp = c.tp > 1;
    c.dist_opt = c.overlap_grad = c.overlap_param = true;
    const int gpus = r.integer("num_gpus");
    const auto p = predict(m, test::dgx_h100(), gpus, c, precision::bf16, cal);
    const double mfu = r.number("measured_tflops_per_gpu") / r.number("peak_tflops");
    predicted.push_back(p.mfu);
    measured.push_back(mfu);
    std::printf("MC r0.8 %-5s gpus %4d tp %d pp %2d: MFU %5.1f%% vs %5.1f%% (%+5.1f%%) "
                "iter %.3f s vs %.3f s, bubble %.3f s, fits %d (%.0f MiB)\n",
                r.text("model").c_str(), gpus, c.tp, c.pp, 100 * p.mfu, 100 * mfu,
                100 * (p.mfu / mfu - 1), p.iteration_time_s, r.number("derived_iter_time_s"),
                p.time.bubble_s, int(p.fits), p.peak_memory_mib);
    const auto& b = p.time;
    std::printf("    [compute %.3f tp %.3f dp %.3f pp %.3f bubble %.3f optimizer %.3f other %.3f]\n",
                b.compute_s, b.tp_comm_s, b.dp_comm_s, b.pp_comm_s, b.bubble_s,
                b.optimizer_s, b.other_s);
  }
  const double err = test::mape(predicted, measured);
  std::printf("Megatron-Core r0.8 MFU MAPE %.2f%%\n", err);
  EXPECT_LE(err, 10.0);
}

} // namespace
} // namespace paratune
