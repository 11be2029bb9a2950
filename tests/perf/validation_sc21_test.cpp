// Narayanan et al. SC21 Table 1: GPT 1.7B..1T on 32..3072 A100s, full
// recompute, fp16, 2021 Megatron (no flash attention). Achieved TFLOP/s are
// counted with the 96 formula, so the prediction is converted likewise.

#include <gtest/gtest.h>

#include <cstdio>

#include "core/perf/perf_model.hpp"
#include "tests/fixtures/test_paths.hpp"
#include "tests/perf/csv_table.hpp"
#include "tests/perf/perf_specs.hpp"

namespace paratune {
namespace {

double sc21_flops(double B, double s, double l, double h, double V) {
  return 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
}

TEST(perf_validation, sc21_table1_tflops_within_10pct_mape) {
  const auto rows = test::read_csv(test::shared_dir()
                                   + "/corpus/perf/megatron_sc21_table1_weak_scaling_a100.csv");
  ASSERT_EQ(rows.size(), 10u);
  perf_calibration cal;
  cal.flash_attention = false;
  cal.p2p_scatter_gather = true;
  std::vector<double> predicted, measured;
  for (const auto& r : rows) {
    const model_spec m = test::gpt(r.integer("num_layers"), r.integer("hidden_size"),
                                   r.integer("attention_heads"), r.integer("vocab"));
    training_config c;
    c.tp = r.integer("tp");
    c.pp = r.integer("pp");
    c.mbs = r.integer("micro_batch");
    c.gbs = r.integer("global_batch");
    c.seq = r.integer("seq_len");
    c.recompute = recompute_mode::full;
    if (!r.empty("layers_per_virtual_stage"))
      c.vpp = m.layers / c.pp / r.integer("layers_per_virtual_stage");
    const int gpus = r.integer("num_gpus");
    const auto p = predict(m, test::dgx_a100(), gpus, c, precision::fp16, cal);
    const double tflops = sc21_flops(c.gbs, c.seq, m.layers, m.hidden, m.vocab)
                          / (p.iteration_time_s * gpus) / 1e12;
    predicted.push_back(tflops);
    measured.push_back(r.number("measured_tflops_per_gpu"));
    std::printf("SC21 %-6s gpus %4d tp %d pp %2d v %d: %6.1f TFLOP/s vs %6.1f (%+5.1f%%) "
                "iter %.2f s vs %.2f s, limiting %s\n",
                r.text("model").c_str(), gpus, c.tp, c.pp, c.vpp, tflops,
                measured.back(), 100 * (tflops / measured.back() - 1),
                p.iteration_time_s, r.number("derived_iter_time_s"),
                p.limiting_factor.c_str());
  }
  const double err = test::mape(predicted, measured);
  std::printf("SC21 Table 1 TFLOP/s MAPE %.2f%%\n", err);
  EXPECT_LE(err, 10.0);
}

} // namespace
} // namespace paratune
