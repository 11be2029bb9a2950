// The vTrain measured landscapes: grouping, counts, the derived TFLOP/s and
// the refusal of malformed rows with their line.

#include <gtest/gtest.h>

#include "adapters/config/measured_tables.hpp"
#include "core/input_error.hpp"
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
  EXPECT_FALSE(first.failed);
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

} // namespace
} // namespace paratune
