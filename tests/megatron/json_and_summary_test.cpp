// What `paratune parse-log` prints: the JSON document and the readable summary.

#include <gtest/gtest.h>

#include <sstream>

#include "adapters/megatron/megatron_log_json.hpp"
#include "adapters/megatron/megatron_log_summary.hpp"
#include "adapters/megatron/utf8_repair.hpp"
#include "tests/fixtures/test_paths.hpp"
#include "tests/megatron/parse_text.hpp"

namespace paratune {
namespace {

std::string corpus_log(const std::string& name) {
  return test::data_dir() + "/megatron_logs/" + name;
}

TEST(log_json, mdk_log_has_every_documented_field) {
  const auto j =
      to_json(parse_megatron_log_file(corpus_log("mdk_docs_core_r0.8.0_fp16_7B_1node_2node.txt")));
  ASSERT_EQ(j["iterations"].size(), 20u);
  const auto& it = j["iterations"][0];
  EXPECT_EQ(it["iteration"], 10);
  EXPECT_EQ(it["train_iters"], 500000);
  EXPECT_DOUBLE_EQ(it["elapsed_ms"].get<double>(), 13035.3);
  EXPECT_DOUBLE_EQ(it["tflops_per_gpu"].get<double>(), 812.5);
  EXPECT_EQ(it["timestamp"], "2024-09-03 15:54:54");
  EXPECT_EQ(it["values"]["loss scale"], "8388608.0");
  EXPECT_EQ(it["values"]["global batch size"], "1024");
  EXPECT_EQ(it["values"].size(), 8u);
  const auto& m = j["memory"][0];
  EXPECT_EQ(m["rank"], 0);
  EXPECT_EQ(m["iteration"], 20);
  EXPECT_DOUBLE_EQ(m["allocated_mib"].get<double>(), 48465.275390625);
  EXPECT_DOUBLE_EQ(m["max_allocated_mib"].get<double>(), 75078.4326171875);
  EXPECT_DOUBLE_EQ(m["reserved_mib"].get<double>(), 75682.0);
  EXPECT_DOUBLE_EQ(m["max_reserved_mib"].get<double>(), 75682.0);
  EXPECT_DOUBLE_EQ(j["theoretical_memory"]["weight_and_optimizer_mb"].get<double>(), 41434.72);
  EXPECT_TRUE(j["theoretical_memory"]["total_mb"].is_null());
  EXPECT_TRUE(j["errors"].empty());
  EXPECT_TRUE(j["args"].is_object());
}

TEST(log_json, bigscience_iterations_have_no_tflops_key) {
  const auto j =
      to_json(parse_megatron_log_file(corpus_log("bigscience_gpt2-meg_n4_dp1_tp4_pp4-1809579.txt")));
  EXPECT_FALSE(j["iterations"][0].contains("tflops_per_gpu"));
  EXPECT_FALSE(j["iterations"][0].contains("timestamp"));
  EXPECT_EQ(j["args"]["tensor_model_parallel_size"], "4");
  EXPECT_EQ(j["layout"]["world_size"], 16);
  EXPECT_EQ(j["timers"][2]["timers"][0]["name"], "forward-compute");
  EXPECT_FALSE(j["timers"][2]["timers"][0].contains("min_ms"));
}

TEST(log_json, errors_carry_kind_line_and_message) {
  const auto j = to_json(
      parse_megatron_log_file(corpus_log("jindajia_Megatron-LM_debug_terminal_oom_issue525.txt")));
  ASSERT_EQ(j["errors"].size(), 1u);
  EXPECT_EQ(j["errors"][0]["kind"], "oom");
  EXPECT_EQ(j["errors"][0]["line"], 851);
  EXPECT_TRUE(j["errors"][0]["message"].get<std::string>().starts_with(
      "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 786.00 MiB"));
}

TEST(log_json, invalid_utf8_is_repaired) {
  const auto log = test::parse_text("RuntimeError: bad \xff\xfe bytes \xe2\x82\n");
  ASSERT_EQ(log.errors.size(), 1u);
  const std::string dumped = to_json(log).dump();
  EXPECT_NE(dumped.find("bad \xEF\xBF\xBD\xEF\xBF\xBD bytes"), std::string::npos);
  EXPECT_EQ(utf8_repair("caf\xc3\xa9 \xe2\x9c\x93"), "caf\xc3\xa9 \xe2\x9c\x93"); // valid kept
  EXPECT_EQ(utf8_repair("\xc0\xaf"), "\xEF\xBF\xBD\xEF\xBF\xBD");                 // overlong
  EXPECT_EQ(utf8_repair("\xed\xa0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"); // surrogate
}

TEST(log_summary, names_iterations_memory_arguments_and_errors) {
  std::ostringstream out;
  write_summary(out,
                parse_megatron_log_file(corpus_log("bigscience_gpt2-meg_n4_dp1_tp4_pp4-1809579.txt")));
  const std::string s = out.str();
  EXPECT_NE(s.find("layout: world size 16, TP 4, PP 4, DP 1"), std::string::npos) << s;
  EXPECT_NE(s.find("tensor_model_parallel_size = 4"), std::string::npos);
  EXPECT_NE(s.find("iterations: 20 logged"), std::string::npos);
  // Iteration 10's 2152.2 ms as a person reads it; --json keeps the milliseconds.
  EXPECT_NE(s.find("         10       2.15 s"), std::string::npos) << s;
  EXPECT_NE(s.find("rank 15 after 20"), std::string::npos);
  EXPECT_NE(s.find("errors: none"), std::string::npos);

  std::ostringstream oom;
  write_summary(
      oom, parse_megatron_log_file(corpus_log("jindajia_Megatron-LM_debug_terminal_oom_issue525.txt")));
  EXPECT_NE(oom.str().find("[oom] line 851: torch.cuda.OutOfMemoryError"), std::string::npos);

  std::ostringstream mdk;
  write_summary(mdk,
                parse_megatron_log_file(corpus_log("mdk_docs_core_r0.8.0_fp16_7B_1node_2node.txt")));
  EXPECT_NE(mdk.str().find("812.5"), std::string::npos);
  EXPECT_NE(mdk.str().find("weight and optimizer 41434.72 MB"), std::string::npos);
}

} // namespace
} // namespace paratune
