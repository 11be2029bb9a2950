// The published-table readers and the model validation that
// `paratune validate-model` prints: the same numbers as tests/perf's
// validation tests and docs/performance_model.md.

#include <gtest/gtest.h>

#include <algorithm>

#include <filesystem>
#include <fstream>

#include "validation/perf_tables.hpp"
#include "core/input_error.hpp"
#include "validation/h100_megatron_table.hpp"
#include "validation/megatron_ci_table.hpp"
#include "validation/model_validation.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

const validation_stat& stat(const table_validation& t, const std::string& name) {
  for (const auto& s : t.stats)
    if (s.name == name)
      return s;
  throw std::runtime_error(t.id + ": no stat " + name);
}

class published : public ::testing::Test {
protected:
  static const published_tables& tables() {
    static const published_tables t = read_published_tables(test::data_dir());
    return t;
  }
};

TEST_F(published, readers_return_every_row_with_the_stated_configuration) {
  const auto& t = tables();
  ASSERT_EQ(t.sc21.size(), 10u);
  ASSERT_EQ(t.korthikanti.size(), 4u);
  ASSERT_EQ(t.megatron_core.size(), 9u);
  ASSERT_EQ(t.optico.size(), 16u);
  ASSERT_EQ(t.vtrain.size(), 109u);
  // SC21 76B: 60 layers, PP 4, 5 layers per virtual stage -> v 3.
  const auto& sc21_76b = t.sc21[5].run;
  EXPECT_EQ(sc21_76b.label, "76B");
  EXPECT_EQ(sc21_76b.config.vpp, 3);
  EXPECT_EQ(sc21_76b.config.recompute, recompute_mode::full);
  EXPECT_EQ(sc21_76b.gpus, 1024);
  EXPECT_DOUBLE_EQ(t.sc21[5].tflops_per_gpu, 140);
  EXPECT_EQ(t.korthikanti[1].run.config.vpp, 3);
  EXPECT_DOUBLE_EQ(t.korthikanti[1].time_sel_s, 13.75);
  EXPECT_NEAR(t.megatron_core[0].mfu, 408.8 / 989, 1e-12);
  EXPECT_TRUE(t.megatron_core[1].run.config.sp);
  EXPECT_FALSE(t.optico[0].ran);
  EXPECT_TRUE(t.optico[1].ran);
  EXPECT_DOUBLE_EQ(t.optico[1].mem_max_mib, 77291.52);
  EXPECT_EQ(t.optico[1].run.gpus, 8);
  EXPECT_EQ(t.vtrain[0].run.label, "3.6B");
  EXPECT_DOUBLE_EQ(t.vtrain[0].iteration_time_s, 3.5665);
}

// The values of docs/performance_model.md's "measured errors" table.
TEST_F(published, every_table_passes_with_the_documented_errors) {
  const auto all = validate_all(tables());
  ASSERT_EQ(all.size(), 9u);
  for (const auto& t : all)
    EXPECT_TRUE(t.pass()) << t.id;
  EXPECT_NEAR(stat(all[0], "MAPE").value, 5.5, 0.1);
  EXPECT_NEAR(stat(all[1], "MAPE").value, 2.2, 0.1);
  EXPECT_NEAR(stat(all[1], "max |error|").value, 5.0, 0.1);
  // Figure 1's states are the layers' alone (validate_korthikanti_memory).
  EXPECT_NEAR(stat(all[2], "MAPE").value, 0.6, 0.1);
  EXPECT_NEAR(stat(all[2], "max |error|").value, 2.4, 0.1);
  EXPECT_NEAR(stat(all[3], "MAPE").value, 7.7, 0.1);
  EXPECT_EQ(stat(all[4], "verdicts right").value, 15);
  EXPECT_EQ(stat(all[4], "of them tight").value, 4);
  EXPECT_NEAR(stat(all[4], "max memory MAPE").value, 7.9, 0.1);
  EXPECT_NEAR(stat(all[5], "MAPE").value, 6.7, 0.1);
  EXPECT_NEAR(stat(all[5], "Spearman 175B").value, 0.92, 0.01);
  EXPECT_NEAR(stat(all[5], "Spearman 39.1B").value, 0.64, 0.01);
  EXPECT_NEAR(stat(all[5], "mean Spearman").value, 0.82, 0.01);
  EXPECT_NEAR(stat(all[6], "MFU MAPE").value, 5.1, 0.1);
  EXPECT_EQ(stat(all[6], "runs predicted to fit").value, 23);
  EXPECT_EQ(stat(all[7], "runs predicted to fit").value, 147);
  // 10.1 before the learned position table of the GPT rows was counted,
  // 10.0 before the unfused-attention working set (paratune's own H100 runs).
  EXPECT_NEAR(stat(all[7], "memory MAPE").value, 9.2, 0.1);
  // 1.9, 41.7 and 0.94 over the first six runs; the second machine's eight
  // (a wider layer, sequence 1024 and 8192, one out of memory) moved them.
  EXPECT_EQ(stat(all[8], "fit verdicts right").value, 14);
  EXPECT_NEAR(stat(all[8], "memory MAPE").value, 3.3, 0.1);
  EXPECT_NEAR(stat(all[8], "iteration time MAPE").value, 35.6, 0.1);
  EXPECT_NEAR(stat(all[8], "Spearman tokens/s").value, 0.93, 0.01);
  EXPECT_EQ(stat(all[7], "rows skipped").value, 209);
  EXPECT_EQ(stat(all[7], "skipped: device gb200 not in the cluster catalog").value, 126);
}

// Megatron-LM's golden values: the layouts the summary states, torch's max
// allocated bytes of the logging (last) pipeline stage against the model's
// allocated memory (no context, no allocator slack).
TEST_F(published, megatron_ci_golden_values_read_and_compared) {
  const auto& t = tables().megatron_ci;
  ASSERT_EQ(t.rows.size(), 147u);
  ASSERT_EQ(t.skipped.size(), 209u);
  const auto it = std::find_if(t.rows.begin(), t.rows.end(), [](const auto& r) {
    return r.run.label == "gpt3_7b_tp1_pp4_memory_speed (h100)";
  });
  ASSERT_NE(it, t.rows.end());
  EXPECT_EQ(it->run.config.pp, 4);
  EXPECT_EQ(it->run.gpus, 8);
  EXPECT_DOUBLE_EQ(it->peak_allocated_gib, 56.551);
  const auto v = validate_megatron_ci({{*it}, {}});
  ASSERT_EQ(v.rows.size(), 1u);
  // 48.6 GiB predicted: 14% under the measured 56.6.
  EXPECT_NEAR(v.rows[0].values[0].predicted, 48.6, 0.1);
  EXPECT_TRUE(v.rows[0].right);
}

// paratune's own Megatron-LM runs on one H100: each command line read back
// as the run's configuration (--recompute-activations is selective), the
// steady iteration time and torch's peak from its log.
TEST_F(published, h100_runs_read_from_their_commands_and_logs) {
  const auto& runs = tables().h100_megatron;
  ASSERT_EQ(runs.size(), 14u);
  const auto by_label = [&](const std::string& label) -> const h100_megatron_run& {
    const auto it = std::find_if(runs.begin(), runs.end(), [&](const auto& r) { return r.label == label; });
    EXPECT_NE(it, runs.end()) << label;
    return *it;
  };
  EXPECT_EQ(runs[0].label, "l7b8_s2048_mbs1_none");  // sorted by label
  const auto& none = by_label("s2048_mbs4_none");
  EXPECT_EQ(none.launch.config.mbs, 4);
  EXPECT_EQ(none.launch.config.gbs, 8);
  EXPECT_EQ(none.launch.model.layers, 22);
  EXPECT_EQ(none.launch.model.kv_heads, 4);
  EXPECT_EQ(none.steady_iterations, 14);
  EXPECT_DOUBLE_EQ(none.iteration_ms, 873.3);
  EXPECT_DOUBLE_EQ(none.peak_allocated_mib, 56726.49);
  EXPECT_EQ(by_label("s2048_mbs4_selective").launch.config.recompute, recompute_mode::selective);
  EXPECT_EQ(by_label("s2048_mbs4_full").launch.config.recompute, recompute_mode::full);
  EXPECT_EQ(by_label("s4096_mbs2_selective").launch.config.seq, 4096);
  // The later --num-layers 8 of the wide runs wins, as in argparse.
  const auto& wide = by_label("l7b8_s2048_mbs1_none");
  EXPECT_EQ(wide.launch.model.layers, 8);
  EXPECT_EQ(wide.launch.model.hidden, 4096);
  EXPECT_EQ(wide.launch.model.kv_heads, 32);
  EXPECT_DOUBLE_EQ(wide.iteration_ms, 720.95);
  // Killed by the capture's time limit after 12 iterations: 10 steady ones.
  EXPECT_EQ(by_label("s8192_mbs1_selective").steady_iterations, 10);
  const auto& oom = by_label("s2048_mbs8_none");
  EXPECT_EQ(oom.iteration_ms, 0);
  EXPECT_NE(oom.out_of_memory.find("CUDA out of memory. Tried to allocate 2.00 GiB."), std::string::npos)
      << oom.out_of_memory;

  const auto v = validate_h100_megatron(runs);
  ASSERT_EQ(v.rows.size(), 14u);
  const auto row = [&](const std::string& label) -> const validation_row& {
    const auto it = std::find_if(v.rows.begin(), v.rows.end(), [&](const auto& r) { return r.label == label; });
    EXPECT_NE(it, v.rows.end()) << label;
    return *it;
  };
  // Micro-batch 4, no recompute: 54.7 GiB predicted against 55.4 measured;
  // 0.553 s against 0.873 (the model prices Transformer Engine's kernels,
  // the run had Megatron-LM's local implementation).
  EXPECT_NEAR(row("s2048_mbs4_none").values[1].predicted, 54.7, 0.1);
  EXPECT_NEAR(row("s2048_mbs4_none").values[0].predicted, 0.553, 0.001);
  // The wider layer is closer: 0.511 s against 0.721 (-29%).
  EXPECT_NEAR(row("l7b8_s2048_mbs1_none").values[0].predicted, 0.511, 0.001);
  // Micro-batch 8 ran out of memory; the model's 96571 MiB peak is within
  // its error band of the 81920 MiB device, so it said only a run could
  // tell: a right verdict, with no times to compare.
  const auto& oom_row = row("s2048_mbs8_none");
  EXPECT_TRUE(oom_row.values.empty());
  EXPECT_TRUE(oom_row.right);
  EXPECT_EQ(oom_row.note, "out of memory on the GPU, predicted tight (peak 96571 MiB of 81920)");
  EXPECT_TRUE(v.pass());
}

// The fit verdict's error band is the one this table measures: core/perf's
// copy (measured_memory_error) changes with the model, and this says when.
TEST_F(published, the_fit_verdicts_error_band_is_the_measured_one) {
  const auto band = measure_memory_error(tables().megatron_ci);
  EXPECT_EQ(band.runs, measured_memory_error.runs);
  EXPECT_NEAR(band.low, measured_memory_error.low, 0.001);
  EXPECT_NEAR(band.high, measured_memory_error.high, 0.001);
  // The model over-estimates some runs and under-estimates others.
  EXPECT_LT(band.low, 0);
  EXPECT_GT(band.high, 0);
}

// The MaxText table as read: the accelerator names give the chips and the
// slice shape, auto(-1) FSDP takes the chips tensor leaves, v4's model
// comes from its launch script.
TEST_F(published, maxtext_rows_read_as_mesh_jobs) {
  const auto& rows = tables().maxtext;
  ASSERT_EQ(rows.size(), 23u);
  const auto& v5e = rows[1];  // 16B on 4 x v5e-256
  EXPECT_EQ(v5e.cluster_ref, "tpu-v5e");
  EXPECT_EQ(to_string(v5e.slice), "4 x 16x16");
  EXPECT_EQ(v5e.ici.at(mesh_axis::fsdp), 256);
  EXPECT_EQ(v5e.dcn.at(mesh_axis::data), 4);
  EXPECT_EQ(v5e.workload.global_batch, 6 * 256 * 4);
  EXPECT_NEAR(v5e.mfu, 0.5914, 1e-9);
  const auto& v5p = rows[18];  // 1024B on v5p-2048: 1024 chips
  EXPECT_EQ(to_string(v5p.slice), "8x8x16");
  EXPECT_EQ(v5p.ici.at(mesh_axis::fsdp), 64);
  EXPECT_EQ(v5p.ici.at(mesh_axis::model), 16);
  const auto& v4 = rows[22];  // 52B on v4-384: 192 chips, 4x4x12
  EXPECT_EQ(to_string(v4.slice), "4x4x12");
  EXPECT_EQ(v4.model.hidden, 12288);
  EXPECT_EQ(v4.model.head_dim, 256);
  EXPECT_FALSE(v4.model.swiglu);
  EXPECT_EQ(v4.workload.global_batch, 7 * 192);
}

TEST_F(published, the_optico_verdicts_over_the_measured_band) {
  // Over the band the golden values measure (-15.5%..+19.1%), one verdict is
  // wrong: tp 1 pp 8 ran out of memory at a predicted 66 GB, which the band
  // calls a fit (see docs/performance_model.md: nothing in the configuration
  // tells it from tp 1 pp 4, which ran). Before the unfused-attention working
  // set, the golden values' large unfused runs were under-predicted by more,
  // the band reached +30.3%, and this verdict was tight. The two tp 1 pp 1
  // OOMs and tp 2 mbs 2 are tight, as is tp 1 pp 2, which ran at 94%.
  const auto t = validate_optico(tables().optico);
  std::vector<std::string> tight, wrong;
  for (const auto& r : t.rows) {
    if (!r.right)
      wrong.push_back(r.label);
    if (r.note.find("predicted tight") != std::string::npos)
      tight.push_back(r.label);
  }
  EXPECT_EQ(wrong, std::vector<std::string>{"tp 1 pp 8 mbs 1 gbs 512"});
  EXPECT_EQ(tight, (std::vector<std::string>{"tp 1 pp 1 mbs 1 gbs 512", "tp 1 pp 2 mbs 1 gbs 512",
                                             "tp 1 pp 1 mbs 1 gbs 512",
                                             "tp 2 pp 1 mbs 2 gbs 512"}));
}

TEST(model_validation, a_failing_gate_fails_the_table) {
  // SC21 1.7B claimed at twice its measured throughput: a 50% error.
  auto rows = read_sc21_table(test::data_dir());
  rows.resize(1);
  rows[0].tflops_per_gpu *= 2;
  const auto t = validate_sc21(rows);
  EXPECT_FALSE(t.pass());
  EXPECT_FALSE(stat(t, "MAPE").pass());
  EXPECT_GT(stat(t, "MAPE").value, 40);
}

TEST(model_validation, spearman_and_mape) {
  EXPECT_DOUBLE_EQ(spearman({1, 2, 3, 4}, {10, 20, 30, 45}), 1.0);
  EXPECT_DOUBLE_EQ(spearman({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0);
  EXPECT_DOUBLE_EQ(spearman({1, 1, 2}, {1, 1, 2}), 1.0);
  EXPECT_NEAR(mape({{"a", 110, 100}, {"b", 95, 100}}), 7.5, 1e-12);
  EXPECT_DOUBLE_EQ(mape({}), 0);
}

TEST(perf_tables, a_damaged_table_names_file_line_and_column) {
  const auto dir = test::make_temp_dir("perf-tables");
  std::filesystem::create_directories(dir + "/perf");
  std::ofstream(dir + "/perf/megatron_sc21_table1_weak_scaling_a100.csv")
    << "model,attention_heads,hidden_size,num_layers,tp,pp,micro_batch,global_batch,"
       "num_gpus,layers_per_virtual_stage,seq_len,vocab,measured_tflops_per_gpu\n"
    << "1.7B,24,2304,24,1,1,16,512,32,,2048,51200,137\n"
    << "3.6B,32,3072,30,two,1,16,512,64,,2048,51200,138\n";
  try {
    read_sc21_table(dir);
    ADD_FAILURE() << "no error";
  } catch (const input_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("megatron_sc21_table1_weak_scaling_a100.csv: line 3"), std::string::npos)
      << what;
    EXPECT_NE(what.find("column 'tp'"), std::string::npos) << what;
  }
  EXPECT_THROW(read_vtrain_multi_table(dir), input_error); // missing file
  std::filesystem::remove_all(dir);
}

} // namespace
} // namespace paratune
