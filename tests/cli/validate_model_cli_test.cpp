// `paratune validate-model` end to end.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>

#include "tests/cli/run_paratune.hpp"

namespace paratune {
namespace {

using validate_model_cli = test::paratune_cli;

TEST_F(validate_model_cli, every_table_passes_and_is_printed) {
  const auto r = test::run_paratune("validate-model --data '" + test::data_dir() + "'");
  ASSERT_EQ(r.status, 0) << r.err << r.out;
  for (const char* text : {"SC21 Table 1", "Korthikanti Table 5", "Korthikanti Figure 1",
                           "Megatron-Core r0.8", "OptiCo Figure 5", "vTrain multi-node",
                           "MAPE 5.5", "verdicts right 15/16", "of them tight 4/16",
                           "mean Spearman 0.82", "ran, predicted tight (peak 70104 MiB",
                           "OOM, predicted fits (peak 66132 MiB, stage 0)  <-- wrong verdict", "Megatron-LM golden values",
                           "runs predicted to fit 147/147", "paratune's own runs: Megatron-LM on one H100",
                           "9/9 tables pass"})
    EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
}

TEST_F(validate_model_cli, json_lists_tables_rows_and_gates) {
  const auto r = test::run_paratune("validate-model --json --data '" + test::data_dir() + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["pass"].get<bool>());
  ASSERT_EQ(j["tables"].size(), 9u);
  EXPECT_EQ(j["tables"][8]["id"], "h100_megatron_1gpu");
  EXPECT_EQ(j["tables"][7]["id"], "megatron_ci");
  EXPECT_EQ(j["tables"][7]["rows"].size(), 147u);
  const auto& sc21 = j["tables"][0];
  EXPECT_EQ(sc21["id"], "sc21");
  EXPECT_EQ(sc21["rows"].size(), 10u);
  EXPECT_EQ(sc21["rows"][0]["values"][0]["measured"], 137.0);
  EXPECT_EQ(sc21["stats"][0]["name"], "MAPE");
  EXPECT_EQ(sc21["stats"][0]["gate"], "<=");
  EXPECT_EQ(sc21["stats"][0]["limit"], 10.0);
  EXPECT_EQ(j["tables"][5]["rows"].size(), 109u);
}

// With no flag, the data/ of the checkout that paratune was built in.
TEST_F(validate_model_cli, with_no_flag_reads_the_checkouts_data) {
  if (!test::bin_dir_is_inside_source())
    GTEST_SKIP() << "the build tree is not inside the source tree";
  unsetenv("PARATUNE_DATA");  // paratune inherits it, and it would come first
  const auto r = test::run_paratune("validate-model --json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(std::filesystem::canonical(j["data_dir"].get<std::string>()),
            std::filesystem::canonical(test::data_dir()));
  EXPECT_TRUE(j["pass"].get<bool>());
}

TEST_F(validate_model_cli, a_missing_data_dir_exits_2) {
  const auto r = test::run_paratune("validate-model --data /nonexistent");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--data '/nonexistent'"), std::string::npos) << r.err;
}

} // namespace
} // namespace paratune
