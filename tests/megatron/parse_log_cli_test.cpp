// `paratune parse-log` end to end, when the paratune executable is built
// (it links the whole project; the logic itself is tested in the other
// files through write_summary and to_json).

#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "tests/fixtures/run_program.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

test::program_result run_paratune(const std::string& args) {
  return test::run_shell("'" + test::bin_dir() + "/paratune' " + args);
}

class parse_log_cli : public ::testing::Test {
protected:
  void SetUp() override {
    if (!std::filesystem::exists(test::bin_dir() + "/paratune"))
      GTEST_SKIP() << "paratune executable not built in " << test::bin_dir();
  }
  static std::string corpus(const std::string& name) {
    return "'" + test::data_dir() + "/megatron_logs/" + name + "'";
  }
};

TEST_F(parse_log_cli, json_output_of_the_oom_log) {
  const auto r = run_paratune("parse-log --json " +
                              corpus("jindajia_Megatron-LM_debug_terminal_oom_issue525.txt"));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["errors"].size(), 1u);
  EXPECT_EQ(j["errors"][0]["kind"], "oom");
  EXPECT_EQ(j["args"]["micro_batch_size"], "4");
  for (const char* key : {"iterations", "memory", "errors", "args", "theoretical_memory"})
    EXPECT_TRUE(j.contains(key)) << key;
}

TEST_F(parse_log_cli, readable_summary) {
  const auto r =
      run_paratune("parse-log " + corpus("mdk_docs_core_r0.8.0_fp16_7B_1node_2node.txt"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("iterations: 20 logged"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("812.5"), std::string::npos);
}

TEST_F(parse_log_cli, unreadable_file_exits_2_naming_it) {
  const auto r = run_paratune("parse-log /nonexistent/run.log");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("/nonexistent/run.log"), std::string::npos) << r.err;
}

} // namespace
} // namespace paratune
