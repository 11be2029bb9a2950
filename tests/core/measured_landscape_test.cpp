// The vTrain measured landscapes: grouping, counts, the derived TFLOP/s and
// the refusal of malformed rows with their line.

#include <gtest/gtest.h>

#include "adapters/config/measured_tables.hpp"
#include "core/input_error.hpp"
#include "core/replay/sweep_table.hpp"
#include "core/replay/vtrain_table.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

const std::vector<measured_landscape>& vtrain() {
  static const auto all = load_vtrain_ground_truth(test::data_dir());
  return all;
}

size_t total_runs(const std::vector<measured_landscape>& all) {
  size_t n = 0;
  for (const auto& l : all)
    n += l.runs.size();
  return n;
}

TEST(VtrainLandscapes, GroupTheTwoTablesInto148LandscapesOf1548Configurations) {
  const auto& all = vtrain();
  EXPECT_EQ(all.size(), 148u);
  // 1,549 rows; the 175B run tp 4 dp 4 pp 32 mbs 2 at gbs 1536 is measured twice.
  EXPECT_EQ(total_runs(all), 1548u);
  const auto tunable = landscapes_with_at_least(all, 4);
  EXPECT_EQ(tunable.size(), 124u);
  size_t largest = 0;
  for (const auto* l : tunable)
    largest = std::max(largest, l->runs.size());
  EXPECT_EQ(largest, 47u);
}

TEST(VtrainLandscapes, FirstLandscapeHasTheModelConfigurationsAndDerivedTflops) {
  const auto& l = vtrain().front();
  EXPECT_EQ(l.name, "vtrain-h1024-l24-a16-s1024-g2-b16");
  EXPECT_EQ(l.model.name, "vtrain-h1024-l24-a16-s1024");
  EXPECT_EQ(l.model.hidden, 1024);
  EXPECT_EQ(l.model.heads, 16);
  EXPECT_EQ(l.model.layers, 24);
  EXPECT_EQ(l.model.ffn, 4096);
  EXPECT_EQ(l.model.vocab, 51200);
  EXPECT_EQ(l.gpus, 2);
  EXPECT_EQ(l.gbs, 16);
  EXPECT_EQ(l.seq, 1024);
  ASSERT_EQ(l.runs.size(), 11u);
  const auto& first = l.runs.front();
  EXPECT_EQ(first.line, 2);
  EXPECT_EQ(canonical_key(first.config),
            canonical_key(parse_config("tp=1,pp=2,mbs=8,gbs=16,seq=1024,recompute=full")));
  EXPECT_DOUBLE_EQ(first.iteration_ms, 372.160408);
  // 12 B s L h^2 ((1 + 1 + s/h) + 4 + V / (2 L h)) / (0.372160408 s x 2 GPUs).
  EXPECT_NEAR(first.tflops_per_gpu, 53.45621964997416, 1e-9);
  EXPECT_FALSE(first.failed());
  const auto* best = l.best();
  ASSERT_NE(best, nullptr);
  EXPECT_DOUBLE_EQ(best->iteration_ms, 287.467058);
  EXPECT_EQ(best->line, 729);
  EXPECT_EQ(best->config.tp, 1);
  EXPECT_EQ(best->config.pp, 1);
  EXPECT_EQ(best->config.mbs, 4);
  EXPECT_EQ(l.find(best->config), best);
  auto absent = best->config;
  absent.mbs = 3;
  EXPECT_EQ(l.find(absent), nullptr);
}

TEST(VtrainLandscapes, LargestLandscapeAndTheRepeatedMeasurement) {
  const measured_landscape* gpt175 = nullptr;
  const measured_landscape* largest = nullptr;
  for (const auto& l : vtrain()) {
    if (l.name == "vtrain-h12288-l96-a96-s2048-g512-b1536")
      gpt175 = &l;
    if (l.name == "vtrain-h8192-l48-a64-s2048-g512-b1536")
      largest = &l;
  }
  ASSERT_NE(largest, nullptr);
  EXPECT_EQ(largest->runs.size(), 47u);
  EXPECT_DOUBLE_EQ(largest->best()->iteration_ms, 13875.5);
  ASSERT_NE(gpt175, nullptr);
  EXPECT_EQ(gpt175->runs.size(), 20u);
  const auto* twice = gpt175->find(
      parse_config("tp=4,pp=32,mbs=2,gbs=1536,seq=2048,recompute=full"));
  ASSERT_NE(twice, nullptr);
  EXPECT_EQ(twice->repeats, 2);
  EXPECT_EQ(twice->line, 92);
  EXPECT_DOUBLE_EQ(twice->iteration_ms, (53909.6 + 53937.9) / 2);
}

const char* const header =
    "# GPUs,global batch,micro batch,hidden size,attention heads,# layers,sequence length,"
    "tensor parallelism,data parallelism,pipeline parallelism,iteration time (ms)\n";

std::string refusal(const std::string& body) {
  try {
    parse_vtrain_table(header + body, "t.csv");
  } catch (const input_error& e) {
    return e.what();
  }
  return "";
}

TEST(VtrainLandscapes, MalformedRowsAreRefusedWithTheirLine) {
  EXPECT_EQ(refusal("2,16,8,1024,16,24,1024,1,1,2,372.1\n2,16,8,1024,16,24,1024,1,1,2\n"),
            "t.csv: line 3: 10 cells, the header has 11");
  EXPECT_EQ(refusal("2,16,8,1024,16,24,1024,1,2,2,372.1\n"),
            "t.csv: line 2: tensor x data x pipeline parallelism is 4, not the 2 GPUs");
  EXPECT_EQ(refusal("2,16,3,1024,16,24,1024,1,2,1,372.1\n"),
            "t.csv: line 2: global batch 16 is not a multiple of micro batch x data parallelism");
  EXPECT_NE(refusal("2,16,8,1024,16,24,1024,1,1,2,fast\n").find("t.csv: line 2: iteration time (ms)"),
            std::string::npos);
  EXPECT_NE(refusal("\n2,16,8,1024,16,x,1024,1,1,2,3\n").find("t.csv: line 3: # layers"),
            std::string::npos);
  try {
    parse_vtrain_table("tp,pp,iteration_ms\n1,1,2\n", "t.csv");
    FAIL() << "a table without vTrain's columns was read";
  } catch (const input_error& e) {
    EXPECT_STREQ(e.what(), "t.csv: line 1: no column '# GPUs' (not a vTrain table)");
  }
}

sweep_context sweep_on() {
  return {vtrain_model(1024, 16, 24, 1024), 8,
          parse_config("tp=4,pp=1,mbs=1,gbs=32,seq=1024,recompute=full")};
}

TEST(SweepTable, ReadsTimesFailuresRepeatsAndTheSearchSpaceTheySpan) {
  const auto l = parse_sweep_table("tp,mbs,iteration_ms,status,peak_memory_mib\n"
                                   "2,4,172.687158,,30500\n"
                                   "1,8,,oom,\n"
                                   "2,4,172.0,ok,31000\n"
                                   "4,1,1373.163443,succeeded,\n",
                                   "sweep.csv", sweep_on());
  EXPECT_EQ(l.name, "vtrain-h1024-l24-a16-s1024-g8-b32");
  ASSERT_EQ(l.runs.size(), 3u);
  EXPECT_EQ(l.runs[0].repeats, 2);
  EXPECT_DOUBLE_EQ(l.runs[0].iteration_ms, (172.687158 + 172.0) / 2);
  EXPECT_EQ(l.runs[0].peak_memory_mib, 31000);
  EXPECT_EQ(l.runs[0].config.recompute, recompute_mode::full);  // the job's, no column
  EXPECT_EQ(l.runs[1].failure, failure_kind::oom);
  EXPECT_EQ(l.runs[1].line, 3);
  // Derived as vTrain's rows are: the same FLOPs over the same time.
  const auto vtrain_row = measured_tflops_per_gpu(l.model, l.runs[2].config, 8, 1373.163443);
  EXPECT_DOUBLE_EQ(l.runs[2].tflops_per_gpu, vtrain_row);
  EXPECT_EQ(l.best(), &l.runs[0]);
  const std::map<std::string, std::vector<std::string>> space = {{"mbs", {"1", "4", "8"}},
                                                                 {"tp", {"1", "2", "4"}}};
  EXPECT_EQ(measured_search_space(l.runs), space);
}

TEST(SweepTable, RefusesUnknownColumnsAndBadCellsWithTheirLine) {
  const auto refused = [](const std::string& text) -> std::string {
    try {
      parse_sweep_table(text, "sweep.csv", sweep_on());
    } catch (const input_error& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(refused("tp,speed\n2,3\n"),
            "sweep.csv: line 1: column 'speed' is neither a configuration key (tp, pp, mbs, gbs, "
            "seq, recompute, ...) nor iteration_ms, tflops_per_gpu, peak_memory_mib or status");
  EXPECT_EQ(refused("tp,mbs\n2,3\n"), "sweep.csv: line 1: no column 'iteration_ms'");
  EXPECT_EQ(refused("tp,iteration_ms,status\n2,100,\n2,100,crashed\n"),
            "sweep.csv: line 3: status: expected succeeded, ok, failed or oom, got 'crashed'");
  EXPECT_NE(refused("tp,iteration_ms\n0,100\n").find("sweep.csv: line 2: "), std::string::npos);
}

} // namespace
} // namespace paratune
