// Korthikanti et al. 2022: Table 5 iteration times (full recompute vs
// sequence parallel + selective recompute) and Figure 1 memory per GPU, on
// A100s with DP = 1. 2022 Megatron: bf16, no flash attention.

#include <gtest/gtest.h>

#include <cstdio>

#include "core/perf/perf_model.hpp"
#include "tests/fixtures/test_paths.hpp"
#include "tests/perf/csv_table.hpp"
#include "tests/perf/perf_specs.hpp"

namespace paratune {
namespace {

struct case_setup {
  model_spec model;
  training_config config;
  int gpus = 0;
};

std::vector<test::csv_row> rows() {
  return test::read_csv(test::shared_dir()
                        + "/corpus/perf/korthikanti2022_seqpar_selective_a100.csv");
}

case_setup setup(const test::csv_row& r) {
  case_setup s;
  s.model = test::gpt(r.integer("num_layers"), r.integer("hidden_size"),
                      r.integer("attention_heads"), r.integer("vocab"));
  s.config.tp = r.integer("tp");
  s.config.pp = r.integer("pp");
  s.config.mbs = r.integer("micro_batch");
  s.config.gbs = r.integer("global_batch");
  s.config.seq = r.integer("seq_len");
  s.config.vpp = r.integer("interleave_v_(calculon_cfg)");
  s.gpus = r.integer("num_gpus");
  return s;
}

perf_calibration era_2022() {
  perf_calibration cal;
  cal.flash_attention = false;
  cal.p2p_scatter_gather = true;
  return cal;
}

perf_prediction run(case_setup s, recompute_mode mode, bool sp) {
  s.config.recompute = mode;
  s.config.sp = sp;
  return predict(s.model, test::dgx_a100(), s.gpus, s.config, precision::bf16, era_2022());
}

TEST(perf_validation, korthikanti_table5_iteration_times_within_10pct) {
  std::vector<double> predicted, measured;
  for (const auto& r : rows()) {
    const case_setup s = setup(r);
    const auto full = run(s, recompute_mode::full, false);
    const auto sel = run(s, recompute_mode::selective, true);
    const double mf = r.number("iter_time_full_recompute_s");
    const double ms = r.number("iter_time_seqpar_plus_selective_s");
    std::printf("Korthikanti T5 %-5s full %6.2f s vs %6.2f (%+5.1f%%)  seq+sel %6.2f s vs %6.2f "
                "(%+5.1f%%)  MFU %.1f%% HFU %.1f%%\n",
                r.text("model").c_str(), full.iteration_time_s, mf,
                100 * (full.iteration_time_s / mf - 1), sel.iteration_time_s, ms,
                100 * (sel.iteration_time_s / ms - 1), 100 * sel.mfu, 100 * sel.hfu);
    predicted.insert(predicted.end(), {full.iteration_time_s, sel.iteration_time_s});
    measured.insert(measured.end(), {mf, ms});
    EXPECT_NEAR(full.iteration_time_s / mf, 1.0, 0.10) << r.text("model");
    EXPECT_NEAR(sel.iteration_time_s / ms, 1.0, 0.10) << r.text("model");
  }
  std::printf("Korthikanti Table 5 time MAPE %.2f%%\n", test::mape(predicted, measured));
}

TEST(perf_validation, korthikanti_figure1_memory_within_10pct) {
  std::vector<double> predicted, measured;
  for (const auto& r : rows()) {
    const case_setup s = setup(r);
    const auto none = run(s, recompute_mode::none, false);
    const auto sel = run(s, recompute_mode::selective, true);
    const auto& stage0 = none.stages.front();
    const double states = (stage0.weights_mib + stage0.gradients_mib + stage0.optimizer_mib) / 1024;
    const double act_none = stage0.activations_mib / 1024;
    const double act_sel = sel.stages.front().activations_mib / 1024;
    const double m_states = r.number("fig1_weights_grads_optimizer_GiB_per_gpu");
    const double m_none = r.number("fig1_activation_GiB_no_recompute");
    const double m_sel = r.number("fig1_activation_GiB_seqpar_selective");
    std::printf("Korthikanti F1 %-5s states %6.2f GiB vs %6.2f (%+5.1f%%)  act none %6.2f vs %6.2f "
                "(%+5.1f%%)  act seq+sel %6.2f vs %6.2f (%+5.1f%%)\n",
                r.text("model").c_str(), states, m_states, 100 * (states / m_states - 1),
                act_none, m_none, 100 * (act_none / m_none - 1), act_sel, m_sel,
                100 * (act_sel / m_sel - 1));
    for (auto [p, m] : {std::pair{states, m_states}, {act_none, m_none}, {act_sel, m_sel}}) {
      EXPECT_NEAR(p / m, 1.0, 0.10) << r.text("model");
      predicted.push_back(p);
      measured.push_back(m);
    }
  }
  std::printf("Korthikanti Figure 1 memory MAPE %.2f%%\n", test::mape(predicted, measured));
}

} // namespace
} // namespace paratune
