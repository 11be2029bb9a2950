#include "adapters/config/history_csv.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "core/input_error.hpp"
#include "tests/fixtures/test_paths.hpp"

namespace paratune {
namespace {

TEST(history_csv, reads_the_optico_expert_table) {
  auto t = load_history_csv(test::data_dir()
                            + "/perf/optico_fig5_llama3_8b_a100x8_expert_tuning.csv");
  EXPECT_EQ(t.model, "llama3");
  EXPECT_EQ(t.model_size, "8B");
  EXPECT_EQ(t.nodes * t.devices_per_node, 8);
  EXPECT_EQ(t.prec, precision::fp16);
  ASSERT_EQ(t.rows.size(), 16u);
  EXPECT_EQ(t.rows[0].status, trial_status::failed);
  EXPECT_EQ(t.rows[0].failure, failure_kind::oom);
  EXPECT_EQ(t.rows[0].config.tp, 1);
  EXPECT_EQ(t.rows[0].config.seq, 8192);
  EXPECT_DOUBLE_EQ(t.rows[0].memory_limit_mib, 81920); // taken from the other rows
  EXPECT_EQ(t.rows[1].config.pp, 2);
  EXPECT_DOUBLE_EQ(t.rows[1].tflops_per_gpu, 210.86);
  EXPECT_DOUBLE_EQ(t.rows[1].peak_memory_mib, 77291.52);
  EXPECT_EQ(t.rows[15].config.mbs, 2);
  EXPECT_EQ(t.rows[15].config.tp, 8);
}

TEST(history_csv, reads_extra_columns_by_optico_name_and_quoted_reasons) {
  auto t = load_history_csv(test::data_dir()
                            + "/perf/optico_fig7_llama3_0p5b_history_excerpt.csv");
  ASSERT_EQ(t.rows.size(), 4u);
  EXPECT_EQ(t.rows[3].failure, failure_kind::config_invalid);
  EXPECT_EQ(t.rows[3].blamed, std::vector<std::string>{"tp"});
  auto dir = test::make_temp_dir("history");
  std::ofstream(dir + "/h.csv")
    << "model,model_size,nnodes,nproc,precision,seq_length,global_batch_size,micro_batch_size,"
       "tp,pp,AC,AC_LAYERS,OVERLAP_GRAD_REDUCE,result,tflops,mfu,mem_max_mib,mem_limit_mib,"
       "failure_reason\n"
       "gpt3,7B,2,8,fp16,4096,1024,2,1,1,full,2,true,success,137.3,0.44,44402,81920,\n"
       "gpt3,7B,2,8,fp16,4096,1024,4,1,1,sel,None,true,fail,,,,81920,\"OOM, on rank 3\"\n";
  auto h = load_history_csv(dir + "/h.csv");
  EXPECT_EQ(h.rows[0].config.recompute, recompute_mode::full);
  EXPECT_EQ(h.rows[0].config.recompute_layers, 2);
  EXPECT_TRUE(h.rows[0].config.overlap_grad);
  EXPECT_EQ(h.rows[1].config.recompute, recompute_mode::selective);
  EXPECT_EQ(h.rows[1].reason, "OOM, on rank 3");
  EXPECT_EQ(h.rows[1].failure, failure_kind::oom);
  std::filesystem::remove_all(dir);
}

TEST(history_csv, bad_input_names_the_line_and_column) {
  auto dir = test::make_temp_dir("history");
  std::ofstream(dir + "/bad.csv") << "model,model_size,micro_batch_size,tp,pp,result\n"
                                     "llama3,8B,2,1,1,success\nllama3,8B,x,1,1,success\n";
  try {
    load_history_csv(dir + "/bad.csv");
    FAIL();
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("line 3: column 'micro_batch_size'"), std::string::npos)
      << e.what();
  }
  std::ofstream(dir + "/nores.csv") << "model,tp,pp\nllama3,1,1\n";
  EXPECT_THROW(load_history_csv(dir + "/nores.csv"), input_error);
  EXPECT_THROW(load_history_csv(dir + "/missing.csv"), input_error);
  std::filesystem::remove_all(dir);
}

// fuzz/history_csv.cpp found this: a node count beyond int's range was
// converted from double, which is undefined behaviour.
TEST(history_csv, a_node_or_device_count_out_of_range_is_refused) {
  const std::string header = "model,nnodes,nproc,micro_batch_size,tp,pp,result\n";
  for (const char* row : {"llama3,1888888888888,8,1,1,1,success\n", "llama3,1,0,1,1,1,success\n",
                          "llama3,nan,8,1,1,1,success\n", "llama3,1.5,8,1,1,1,success\n"}) {
    std::istringstream in(header + row);
    try {
      read_history_csv(in, "h.csv");
      ADD_FAILURE() << "accepted " << row;
    } catch (const input_error& e) {
      EXPECT_NE(std::string(e.what()).find("h.csv: line 2: column 'n"), std::string::npos)
        << e.what();
    }
  }
  std::istringstream ok(header + "llama3,2,8,1,1,1,success\n");
  const auto t = read_history_csv(ok, "h.csv");
  EXPECT_EQ(t.nodes, 2);
  EXPECT_EQ(t.devices_per_node, 8);
}

} // namespace
} // namespace paratune
